#include "compare/rounddecision.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace ks {

namespace {

using nlohmann::json;

// A ratio's interval that can be judged: finite, above 0, in order.
std::optional<std::pair<double, double>> judgeable(const std::optional<Interval>& ci)
{
    if (!ci || !std::isfinite(ci->low) || !std::isfinite(ci->high) || !(ci->low > 0) || ci->high < ci->low)
        return std::nullopt;
    return std::pair(ci->low, ci->high);
}

bool clearOf(const std::pair<double, double>& ci, double threshold)
{
    return ci.first > threshold || ci.second < threshold;
}

// Every (arm, ratio) the rule chooses, each once, in the order written: `ratios` first, then `fail_if`.
std::vector<std::pair<QString, QString>> chosen(const RoundRule& rule)
{
    std::vector<std::pair<QString, QString>> out;
    QSet<QString> seen;
    auto add = [&](const QString& arm, const QString& ratio) {
        const QStringList arms = arm.isEmpty() ? rule.arms : QStringList { arm };
        for (const QString& a : arms) {
            const QString key = a + QLatin1Char('\n') + ratio;
            if (!seen.contains(key)) {
                seen.insert(key);
                out.emplace_back(a, ratio);
            }
        }
    };
    for (const RatioTarget& t : rule.ratios)
        add(t.arm, t.ratio);
    for (const GateCondition& c : rule.failIf)
        add(c.arm, c.metric);
    return out;
}

QString percentText(double fraction)
{
    return QString::number(fraction * 100, 'g', 3) + QStringLiteral(" %");
}

json optionalNumber(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

} // namespace

RoundDecision decideRound(const Comparison& compare, const RoundRule& rule, int round, double confidence)
{
    RoundDecision out;
    out.round = round;
    out.max = rule.max;
    out.halfWidth = rule.halfWidth;
    out.confidence = confidence;
    const double widthLimit = std::log1p(rule.halfWidth);
    for (const auto& [arm, ratio] : chosen(rule)) {
        // Only latency ratios have intervals; any other ratio stays undecided.
        const std::optional<LatencyMetric> metric
            = latencyMetricOf(ratio.section(QLatin1Char('.'), 0, 0).toStdString());
        const std::optional<LatencyStat> stat = latencyStatOf(ratio.section(QLatin1Char('.'), 1).toStdString());
        std::vector<double> thresholds;
        for (const GateCondition& c : rule.failIf)
            if (c.metric == ratio && (c.arm.isEmpty() || c.arm == arm))
                thresholds.push_back(c.threshold);
        const ComparedArm* entry = armNamed(compare, arm);
        bool any = false;
        for (const ComparedConfig& config : entry ? entry->configs : std::vector<ComparedConfig>()) {
            if (config.config.isEmpty() || config.config == entry->baseline)
                continue;
            any = true;
            const ComparedStat* cell = metric && stat ? &config.stat(*metric, *stat) : nullptr;
            RoundRatio r { arm, config.config, ratio,
                cell && cell->ratio && std::isfinite(*cell->ratio) ? cell->ratio : std::nullopt,
                cell ? judgeable(cell->ratioCi) : std::nullopt, false };
            if (r.value && r.ci95) {
                const bool narrow = (std::log(r.ci95->second) - std::log(r.ci95->first)) / 2 <= widthLimit;
                bool clear = !thresholds.empty();
                for (double t : thresholds)
                    clear = clear && clearOf(*r.ci95, t);
                r.decided = narrow || clear;
            }
            out.ratios.push_back(std::move(r));
        }
        if (!any) // nothing to judge it by: undecided, and said so
            out.ratios.push_back({ arm, QString(), ratio, std::nullopt, std::nullopt, false });
    }
    out.decided = !out.ratios.empty();
    for (const RoundRatio& r : out.ratios)
        out.decided = out.decided && r.decided;
    if (out.decided)
        out.stop = QStringLiteral("decided");
    else if (round >= rule.max)
        out.stop = QStringLiteral("budget");
    return out;
}

nlohmann::json roundLine(const RoundDecision& d)
{
    json ratios = json::array();
    for (const RoundRatio& r : d.ratios)
        ratios.push_back({ { "arm", r.arm.toStdString() }, { "config", r.config.toStdString() },
            { "ratio", r.ratio.toStdString() }, { "value", optionalNumber(r.value) },
            { "ci95", r.ci95 ? json::array({ r.ci95->first, r.ci95->second }) : json(nullptr) },
            { "decided", r.decided } });
    json line = { { "type", "round" }, { "round", d.round }, { "decided", d.decided },
        { "stop", d.stop.isEmpty() ? json(nullptr) : json(d.stop.toStdString()) }, { "ratios", ratios },
        { "max", d.max }, { "half_width", d.halfWidth }, { "confidence", d.confidence } };
    if (!d.problem.isEmpty())
        line["problem"] = d.problem.toStdString();
    return line;
}

RoundDecision roundDecisionFromLine(const nlohmann::json& line)
{
    RoundDecision d;
    if (!line.is_object())
        return d;
    auto text = [](const json& o, const char* key) {
        const auto it = o.find(key);
        return it != o.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
    };
    auto number = [](const json& o, const char* key) {
        const auto it = o.find(key);
        return it != o.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    d.round = int(number(line, "round").value_or(0));
    d.decided = line.value("decided", json()).is_boolean() && line["decided"].get<bool>();
    d.stop = text(line, "stop");
    d.max = int(number(line, "max").value_or(0));
    d.halfWidth = number(line, "half_width").value_or(0);
    d.confidence = number(line, "confidence").value_or(0);
    d.problem = text(line, "problem");
    for (const json& r : line.value("ratios", json::array())) {
        if (!r.is_object())
            continue;
        RoundRatio ratio { text(r, "arm"), text(r, "config"), text(r, "ratio"), number(r, "value"), std::nullopt,
            r.value("decided", json()).is_boolean() && r["decided"].get<bool>() };
        const json ci = r.value("ci95", json());
        if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
            ratio.ci95 = std::pair(ci[0].get<double>(), ci[1].get<double>());
        d.ratios.push_back(std::move(ratio));
    }
    return d;
}

QString roundSentence(const RoundDecision& d)
{
    if (d.stop == QLatin1String("decided"))
        return QStringLiteral("decided after round %1: every chosen ratio's interval is narrower than ±%2 or clear "
                              "of the gate")
            .arg(d.round)
            .arg(percentText(d.halfWidth));
    if (d.stop == QLatin1String("stopped"))
        return QStringLiteral("stopped after round %1, before every chosen ratio was decided").arg(d.round);
    // The undecided ones: "ttft_ms.p99 of stress (mns64, mns128)".
    std::vector<std::pair<QString, QStringList>> open;
    int decided = 0;
    for (const RoundRatio& r : d.ratios) {
        if (r.decided) {
            ++decided;
            continue;
        }
        const QString what = r.ratio + QStringLiteral(" of ") + r.arm;
        auto it = std::find_if(open.begin(), open.end(), [&](const auto& o) { return o.first == what; });
        if (it == open.end())
            it = open.insert(open.end(), { what, {} });
        if (!r.config.isEmpty())
            it->second << r.config;
    }
    QStringList parts;
    for (const auto& [what, configs] : open)
        parts << (configs.isEmpty()
                ? what + QStringLiteral(" (no comparison)")
                : what + QStringLiteral(" (") + configs.join(QStringLiteral(", ")) + QLatin1Char(')'));
    if (d.stop == QLatin1String("budget"))
        return QStringLiteral("budget of %1 rounds spent: %2 still undecided")
            .arg(d.max)
            .arg(parts.join(QStringLiteral("; ")));
    return QStringLiteral("%1 of %2 chosen ratios decided after round %3; another round follows (undecided: %4)")
        .arg(decided)
        .arg(d.ratios.size())
        .arg(d.round)
        .arg(parts.join(QStringLiteral("; ")));
}

} // namespace ks
