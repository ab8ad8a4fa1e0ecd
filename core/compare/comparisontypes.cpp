#include "compare/comparisontypes.h"

namespace ks {

const char* latencyKey(LatencyMetric metric)
{
    switch (metric) {
    case LatencyMetric::Tpot:
        return "tpot_ms";
    case LatencyMetric::Itl:
        return "itl_ms";
    case LatencyMetric::E2e:
        return "e2e_ms";
    case LatencyMetric::Ttft:
        break;
    }
    return "ttft_ms";
}

const char* statKey(LatencyStat stat)
{
    switch (stat) {
    case LatencyStat::P95:
        return "p95";
    case LatencyStat::P99:
        return "p99";
    case LatencyStat::P50:
        break;
    }
    return "p50";
}

std::optional<LatencyMetric> latencyMetricOf(std::string_view key)
{
    for (LatencyMetric m : kLatencyMetrics)
        if (key == latencyKey(m))
            return m;
    return std::nullopt;
}

std::optional<LatencyStat> latencyStatOf(std::string_view stat)
{
    for (LatencyStat s : kLatencyStats)
        if (stat == statKey(s))
            return s;
    return std::nullopt;
}

std::optional<double> ComparedConfig::value(LatencyMetric metric, LatencyStat s) const
{
    const std::optional<SummaryDistribution>& d = latencyOf(metric);
    if (!d)
        return std::nullopt;
    const std::optional<double>& named = s == LatencyStat::P50 ? d->p50 : s == LatencyStat::P95 ? d->p95 : d->p99;
    if (named)
        return named;
    // An integer figure (an import's) stays in the distribution's rest, as written.
    const nlohmann::json v = d->rest.value(statKey(s), nlohmann::json());
    return v.is_number() ? std::optional(v.get<double>()) : std::nullopt;
}

const ComparedConfig* ComparedArm::baselineConfig() const
{
    for (const ComparedConfig& c : configs)
        if (c.config == baseline)
            return &c;
    return nullptr;
}

const ComparedArm* armNamed(const Comparison& comparison, const QString& arm)
{
    for (const ComparedArm& a : comparison)
        if (a.arm == arm)
            return &a;
    return nullptr;
}

} // namespace ks
