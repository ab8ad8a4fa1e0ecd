#include "metrics/sweepcapacity.h"

#include <map>

namespace ks {

namespace {

double p(const nlohmann::json& summary, const char* key, const char* stat)
{
    const auto it = summary.find(key);
    if (it == summary.end() || !it->is_object())
        return -1;
    const auto v = it->find(stat);
    return v != it->end() && v->is_number() ? v->get<double>() : -1;
}

double number(const nlohmann::json& summary, const char* key)
{
    const auto it = summary.find(key);
    return it != summary.end() && it->is_number() ? it->get<double>() : 0.0;
}

} // namespace

double achievedRate(const nlohmann::json& summary)
{
    const double completion = number(summary, "completion_req_per_s");
    return completion > 0 ? completion : number(summary, "req_per_s");
}

StepVerdict judgeStep(const nlohmann::json& summary, const Slo& slo, bool rateStep)
{
    StepVerdict v;
    const bool completed = summary.value("ok", 0) > 0;
    if (!completed) {
        v.meetsSlo = v.keptUp = false;
        v.sloProblem = QStringLiteral("no request completed");
        v.rateProblem = v.sloProblem;
        return v;
    }
    QStringList broken;
    const double ttft = p(summary, "ttft_ms", "p99");
    if (slo.ttftMs > 0 && (ttft < 0 || ttft > slo.ttftMs))
        broken << QStringLiteral("TTFT p99 %1 ms > %2 ms").arg(ttft, 0, 'f', 0).arg(slo.ttftMs);
    const double tpot = p(summary, "tpot_ms", "p99");
    if (slo.tpotMs > 0 && tpot > slo.tpotMs)
        broken << QStringLiteral("TPOT p99 %1 ms > %2 ms").arg(tpot, 0, 'f', 1).arg(slo.tpotMs);
    v.meetsSlo = broken.isEmpty();
    v.sloProblem = broken.join(QStringLiteral(", "));
    if (rateStep) {
        const double offered = number(summary, "offered_req_per_s");
        const double achieved = achievedRate(summary);
        if (offered > 0 && achieved < kKeptUpShare * offered) {
            v.keptUp = false;
            v.rateProblem = QStringLiteral("achieved %1 req/s, below 90 % of the offered %2 req/s")
                                .arg(achieved, 0, 'f', 2)
                                .arg(offered, 0, 'f', 2);
        }
    }
    return v;
}

std::optional<SweepPoint> sweepPoint(const nlohmann::json& summary, const Slo& slo)
{
    const auto sweep = summary.find("sweep");
    if (sweep == summary.end() || !sweep->is_object())
        return std::nullopt;
    SweepPoint point;
    point.config = QString::fromStdString(summary.value("config", std::string()));
    point.run = QString::fromStdString(summary.value("run", std::string()));
    point.step = QString::fromStdString(sweep->value("step", std::string()));
    if (point.step.isEmpty())
        point.step = QString::fromStdString(sweep->value("over", std::string("rate")));
    if (const auto v = sweep->find("value"); v != sweep->end() && v->is_number())
        point.value = v->get<double>();
    point.repeat = summary.value("repeat", 1);
    point.achievedReqPerS = achievedRate(summary);
    point.ttftP50 = p(summary, "ttft_ms", "p50");
    point.ttftP99 = p(summary, "ttft_ms", "p99");
    point.tpotP50 = p(summary, "tpot_ms", "p50");
    point.tpotP99 = p(summary, "tpot_ms", "p99");
    point.verdict = judgeStep(summary, slo, point.step == QLatin1String("rate"));
    point.stop = QString::fromStdString(sweep->value("stop", std::string()));
    point.arm = QString::fromStdString(sweep->value("arm", std::string()));
    point.overRate = sweep->value("over", std::string("rate")) == "rate";
    return point;
}

Slo summarySlo(const RunSummary& summary)
{
    Slo slo;
    if (summary.slo.is_object()) {
        slo.ttftMs = summary.slo.value("ttft_ms", 0.0);
        slo.tpotMs = summary.slo.value("tpot_ms", 0.0);
    }
    return slo;
}

std::optional<SweepPoint> sweepPoint(const RunSummary& summary)
{
    if (!summary.sweep.is_object())
        return std::nullopt;
    return sweepPoint(runSummaryToJson(summary), summarySlo(summary));
}

std::optional<double> sweepCapacity(const std::vector<SweepPoint>& points)
{
    std::map<double, bool> passedByValue; // every repeat of a value must pass
    for (const SweepPoint& point : points) {
        if (!point.value || (point.step != QLatin1String("rate") && point.step != QLatin1String("concurrency")))
            continue;
        auto [it, inserted] = passedByValue.try_emplace(*point.value, true);
        it->second = it->second && point.verdict.passes();
    }
    std::optional<double> best;
    for (const auto& [value, passed] : passedByValue)
        if (passed)
            best = value;
    return best;
}

std::optional<double> achievedAtCapacity(const std::vector<SweepPoint>& points, double capacity)
{
    double sum = 0;
    int n = 0;
    for (const SweepPoint& point : points)
        if (point.value && *point.value == capacity) {
            sum += point.achievedReqPerS;
            ++n;
        }
    return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

QString capacityText(double capacity, std::optional<double> achieved, bool overRate)
{
    const QString value = QString::number(capacity, 'g', 6);
    if (overRate)
        return achieved ? QStringLiteral("%1 req/s offered (%2 achieved)").arg(value).arg(*achieved, 0, 'f', 2)
                        : QStringLiteral("%1 req/s offered").arg(value);
    return achieved ? QStringLiteral("%1 in flight (%2 req/s achieved)").arg(value).arg(*achieved, 0, 'f', 2)
                    : QStringLiteral("%1 in flight").arg(value);
}

} // namespace ks
