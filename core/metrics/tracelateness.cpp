#include "metrics/tracelateness.h"

#include "metrics/percentiles.h"

#include <algorithm>

namespace ks {

nlohmann::json traceLatenessOf(std::vector<double>& lateMs)
{
    if (lateMs.empty())
        return nullptr;
    const auto over = std::count_if(lateMs.begin(), lateMs.end(), [](double ms) { return ms > kTraceLateMs; });
    const PercentileSummary s = summarizeBySelection(lateMs);
    return { { "late_p50_ms", s.p50 }, { "late_p99_ms", s.p99 }, { "late_over_10ms", over } };
}

nlohmann::json traceLateness(const std::vector<RequestRecord>& records)
{
    std::vector<double> late;
    late.reserve(records.size());
    for (const RequestRecord& r : records)
        if (!r.warmup)
            late.push_back(double(r.scheduleLagUs()) / 1000.0);
    return traceLatenessOf(late);
}

} // namespace ks
