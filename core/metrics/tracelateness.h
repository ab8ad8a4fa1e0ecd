#pragma once

#include "store/requestrecord.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ks {

/// Sends later than this count as late in a trace arm's summary.
inline constexpr double kTraceLateMs = 10.0;

/// A trace arm's summary `trace` object from its requests' lateness
/// (t_send_us - t_sched_us, warm-up excluded): {"late_p50_ms", "late_p99_ms",
/// "late_over_10ms"}; null without requests.
nlohmann::json traceLateness(const std::vector<RequestRecord>& records);
/// The same from lateness values in milliseconds (reordered).
nlohmann::json traceLatenessOf(std::vector<double>& lateMs);
/// A warning when the client fell behind the recorded schedule (p99 over
/// kTraceLateMs), naming how far and how many sends; empty when it kept it.
std::string traceLatenessWarning(const nlohmann::json& trace, int requests);
/// "  trace: sends late p50 X ms, p99 Y ms, N over 10 ms" for a summary table.
std::string traceLatenessLine(const nlohmann::json& trace);

} // namespace ks
