#include "metrics/tracelateness.h"

#include "metrics/percentiles.h"

#include <algorithm>
#include <cstdio>

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

std::string traceLatenessWarning(const nlohmann::json& trace, int requests)
{
    if (!trace.is_object() || !trace.value("late_p99_ms", nlohmann::json()).is_number())
        return {};
    const double p99 = trace["late_p99_ms"].get<double>();
    if (p99 <= kTraceLateMs) // NaN warns: a figure that cannot be read is not a schedule kept
        return {};
    char text[240];
    std::snprintf(text, sizeof text,
        "the client fell behind the trace: sends were %.1f ms late at p99, %lld of %d more than %.0f ms late; "
        "the arrivals the server saw are not the trace's (a slower speed, or a less busy client machine)",
        p99, trace.value("late_over_10ms", 0LL), requests, kTraceLateMs);
    return text;
}

std::string traceLatenessLine(const nlohmann::json& trace)
{
    if (!trace.is_object() || !trace.value("late_p50_ms", nlohmann::json()).is_number()
        || !trace.value("late_p99_ms", nlohmann::json()).is_number())
        return {};
    char text[160];
    std::snprintf(text, sizeof text, "  trace: sends late p50 %.2f ms, p99 %.2f ms, %lld more than %.0f ms late",
        trace["late_p50_ms"].get<double>(), trace["late_p99_ms"].get<double>(), trace.value("late_over_10ms", 0LL),
        kTraceLateMs);
    return text;
}

} // namespace ks
