#include "compare/knobresponse.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ks {

namespace {

const char* const kLatencyKeys[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
const char* const kStats[] = { "p50", "p95", "p99" };
const char* const kRates[] = { "req_per_s", "out_tok_per_s", "goodput_req_per_s" };

// A configuration's knob values, with its model as the knob "model".
nlohmann::json knobValuesOf(const ComparedConfig& config)
{
    nlohmann::json values = config.knobs.is_object() ? config.knobs : nlohmann::json::object();
    if (config.model)
        values["model"] = config.model->toStdString();
    return values;
}

// Every configuration's knob values by label, from every arm that names it.
std::vector<std::pair<QString, nlohmann::json>> configKnobs(const Comparison& compare)
{
    std::vector<std::pair<QString, nlohmann::json>> out;
    for (const ComparedArm& arm : compare)
        for (const ComparedConfig& c : arm.configs)
            if (std::none_of(out.begin(), out.end(), [&](const auto& p) { return p.first == c.config; }))
                out.emplace_back(c.config, knobValuesOf(c));
    return out;
}

QString valueText(const nlohmann::json& v)
{
    return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString::fromStdString(v.dump());
}

QString titleOf(const QString& metric)
{
    if (metric == QLatin1String("req_per_s"))
        return QStringLiteral("requests/s");
    if (metric == QLatin1String("out_tok_per_s"))
        return QStringLiteral("output tokens/s");
    if (metric == QLatin1String("goodput_req_per_s"))
        return QStringLiteral("goodput requests/s (meeting the SLO)");
    if (metric == QLatin1String("capacity"))
        return QStringLiteral("capacity of the sweep (highest step within the SLO)");
    if (metric == QLatin1String("drift"))
        return QStringLiteral("probe outputs that changed");
    const QString key = metric.section(QLatin1Char('.'), 0, 0);
    return QStringLiteral("%1 %2 (ms)")
        .arg(key.section(QLatin1Char('_'), 0, 0).toUpper(), metric.section(QLatin1Char('.'), 1));
}

struct Figure {
    std::optional<double> y;
    std::optional<Interval> ci;
    QString method;
};

std::optional<double> finite(std::optional<double> v)
{
    return v && std::isfinite(*v) ? v : std::nullopt;
}

// The figure and its interval exactly as compare has them: across repeats when
// the configuration has repeats, else compare's own ci95.
Figure figureOf(const ComparedConfig& config, const QString& metric)
{
    Figure f;
    const std::string key = metric.section(QLatin1Char('.'), 0, 0).toStdString();
    const std::optional<LatencyMetric> latency = latencyMetricOf(key);
    const std::optional<LatencyStat> stat = latencyStatOf(metric.section(QLatin1Char('.'), 1).toStdString());
    if (!latency || !stat) { // a rate; of the rates only requests/s has a spread over repeats
        f.y = finite(key == "req_per_s"      ? std::optional(config.reqPerS)
                : key == "out_tok_per_s"     ? std::optional(config.outTokPerS)
                : key == "goodput_req_per_s" ? std::optional(config.goodputReqPerS)
                                             : std::nullopt);
        if (key == "req_per_s" && config.repeats && config.repeats->reqPerS && config.repeats->reqPerS->tCi95) {
            f.ci = config.repeats->reqPerS->tCi95;
            f.method = QStringLiteral("repeats");
        }
        return f;
    }
    f.y = finite(config.value(*latency, *stat));
    if (config.repeats)
        if (const std::optional<RoundsSpread>& spread = config.repeats->spread(*latency, *stat);
            spread && spread->tCi95) {
            f.ci = spread->tCi95;
            f.method = QStringLiteral("repeats");
        }
    if (!f.ci && config.stat(*latency, *stat).ci) {
        f.ci = config.stat(*latency, *stat).ci;
        f.method = config.ciMethod;
    }
    return f;
}

} // namespace

QStringList knobMetrics()
{
    QStringList out;
    for (const char* key : kLatencyKeys)
        for (const char* stat : kStats)
            out << QStringLiteral("%1.%2").arg(QLatin1String(key), QLatin1String(stat));
    for (const char* rate : kRates)
        out << QLatin1String(rate);
    return out << QStringLiteral("capacity") << QStringLiteral("drift");
}

QStringList knobNames(const Comparison& compare)
{
    QStringList out;
    for (const auto& [label, values] : configKnobs(compare))
        for (const auto& [name, value] : values.items())
            if (!out.contains(QString::fromStdString(name)))
                out << QString::fromStdString(name);
    return out;
}

QStringList varyingKnobs(const Comparison& compare)
{
    const auto configs = configKnobs(compare);
    QStringList out;
    for (const QString& name : knobNames(compare)) {
        std::set<std::string> seen;
        for (const auto& [label, values] : configs)
            seen.insert(values.value(name.toStdString(), nlohmann::json()).dump());
        if (seen.size() > 1)
            out << name;
    }
    return out;
}

bool knobResponse(const Comparison& compare, const QString& knob, const QString& metric, KnobResponse* out,
    QString* error, const std::map<QString, int>* drift)
{
    *out = KnobResponse();
    if (!knobMetrics().contains(metric)) {
        *error = QStringLiteral("unknown metric \"%1\" (metrics: %2)")
                     .arg(metric, knobMetrics().join(QStringLiteral(", ")));
        return false;
    }
    const QStringList names = knobNames(compare);
    if (!names.contains(knob)) {
        *error = names.isEmpty()
            ? QStringLiteral("no configuration records knob values, so there is no knob \"%1\"").arg(knob)
            : QStringLiteral("no knob \"%1\" in this file (knobs: %2)").arg(knob, names.join(QStringLiteral(", ")));
        return false;
    }
    const auto configs = configKnobs(compare);
    std::vector<nlohmann::json> distinct;
    bool numeric = true;
    for (const auto& [label, values] : configs) {
        const nlohmann::json v = values.value(knob.toStdString(), nlohmann::json());
        if (v.is_null())
            continue;
        numeric = numeric && v.is_number() && knob != QLatin1String("model");
        if (std::find(distinct.begin(), distinct.end(), v) == distinct.end())
            distinct.push_back(v);
    }
    if (distinct.size() < 2) {
        *error = QStringLiteral("knob \"%1\" has one value in this file (%2): nothing to chart against it")
                     .arg(knob, distinct.empty() ? QStringLiteral("none") : valueText(distinct.front()));
        return false;
    }
    out->knob = knob;
    out->metric = metric;
    out->metricTitle = titleOf(metric);
    out->numeric = numeric;
    out->higherIsBetter = !metric.contains(QLatin1Char('.')) && metric != QLatin1String("drift");
    if (numeric) {
        double lo = distinct.front().get<double>(), hi = lo;
        for (const nlohmann::json& v : distinct) {
            lo = std::min(lo, v.get<double>());
            hi = std::max(hi, v.get<double>());
        }
        out->logX = lo > 0 && hi / lo > 8.0;
    } else {
        for (const nlohmann::json& v : distinct)
            out->categories << valueText(v);
    }
    const QStringList others = [&] {
        QStringList o = varyingKnobs(compare);
        o.removeAll(knob);
        return o;
    }();
    auto knobsOf = [&](const QString& label) {
        for (const auto& [l, values] : configs)
            if (l == label)
                return values;
        return nlohmann::json::object();
    };
    auto groupOf = [&](const nlohmann::json& values) {
        QStringList parts;
        for (const QString& other : others)
            if (const nlohmann::json v = values.value(other.toStdString(), nlohmann::json()); !v.is_null())
                parts << other + QLatin1Char('=') + valueText(v);
        return parts.join(QStringLiteral(", "));
    };
    auto add = [&](const QString& arm, const QString& config, const Figure& f, const QString& missing) {
        const nlohmann::json values = knobsOf(config);
        const nlohmann::json v = values.value(knob.toStdString(), nlohmann::json());
        if (v.is_null()) {
            out->leftOut.push_back({ config, arm, QStringLiteral("no value for %1").arg(knob) });
            return;
        }
        if (!f.y) {
            out->leftOut.push_back({ config, arm, missing });
            return;
        }
        const QString group = groupOf(values);
        auto s = std::find_if(out->series.begin(), out->series.end(),
            [&](const KnobSeries& k) { return k.arm == arm && k.group == group; });
        if (s == out->series.end())
            s = out->series.insert(out->series.end(), KnobSeries { arm, group, {} });
        KnobPoint p { config, v, numeric ? v.get<double>() : double(out->categories.indexOf(valueText(v))), *f.y, f.ci,
            f.method };
        s->points.push_back(std::move(p));
    };
    if (metric == QLatin1String("drift")) {
        for (const auto& [label, values] : configs) {
            Figure f;
            if (drift && drift->count(label))
                f.y = drift->at(label);
            add(QStringLiteral("probes"), label, f, QStringLiteral("no probe passes"));
        }
    }
    for (const ComparedArm& arm : compare) {
        if (metric == QLatin1String("capacity")) {
            if (!arm.isSweep())
                continue;
            // A sweep's own entry passes its `sweep` object on as compare made it (docs/formats.md, "Sweeps").
            const nlohmann::json capacity = arm.sweep.value("capacity", nlohmann::json::object());
            for (const auto& c : arm.sweep.value("configs", nlohmann::json::array())) {
                if (!c.is_string())
                    continue;
                const nlohmann::json cap
                    = capacity.is_object() ? capacity.value(c.get<std::string>(), nlohmann::json()) : nlohmann::json();
                Figure f;
                if (cap.is_number() && std::isfinite(cap.get<double>()))
                    f.y = cap.get<double>();
                add(arm.arm, QString::fromStdString(c.get<std::string>()), f, QStringLiteral("no step met the SLO"));
            }
            continue;
        }
        if (metric == QLatin1String("drift") || arm.isSweep())
            continue;
        if (!out->slo && arm.slo) {
            const double bound = metric.startsWith(QLatin1String("ttft_ms")) ? arm.slo->ttftMs
                : metric.startsWith(QLatin1String("tpot_ms"))                ? arm.slo->tpotMs
                                                                             : 0.0;
            if (bound > 0)
                out->slo = bound;
        }
        for (const ComparedConfig& c : arm.configs)
            add(arm.arm, c.config, figureOf(c, metric), QStringLiteral("no finite %1").arg(metric));
    }
    for (KnobSeries& s : out->series)
        std::stable_sort(
            s.points.begin(), s.points.end(), [](const KnobPoint& a, const KnobPoint& b) { return a.x < b.x; });
    return true;
}

nlohmann::json knobResponseJson(const KnobResponse& r)
{
    nlohmann::json series = nlohmann::json::array();
    for (const KnobSeries& s : r.series) {
        nlohmann::json points = nlohmann::json::array();
        for (const KnobPoint& p : s.points)
            points.push_back({ { "config", p.config.toStdString() }, { "value", p.value }, { "y", p.y },
                { "ci95", p.ci95 ? nlohmann::json::array({ p.ci95->low, p.ci95->high }) : nlohmann::json(nullptr) },
                { "method", p.ci95 ? nlohmann::json(p.method.toStdString()) : nlohmann::json(nullptr) } });
        series.push_back({ { "arm", s.arm.toStdString() }, { "group", s.group.toStdString() }, { "points", points } });
    }
    nlohmann::json leftOut = nlohmann::json::array();
    for (const KnobLeftOut& l : r.leftOut)
        leftOut.push_back({ { "config", l.config.toStdString() }, { "arm", l.arm.toStdString() },
            { "reason", l.reason.toStdString() } });
    nlohmann::json categories = nlohmann::json::array();
    for (const QString& c : r.categories)
        categories.push_back(c.toStdString());
    return { { "chart", "knob" }, { "knob", r.knob.toStdString() }, { "metric", r.metric.toStdString() },
        { "numeric", r.numeric }, { "log_x", r.logX }, { "categories", categories },
        { "slo", r.slo ? nlohmann::json(*r.slo) : nlohmann::json(nullptr) }, { "series", series },
        { "left_out", leftOut } };
}

} // namespace ks
