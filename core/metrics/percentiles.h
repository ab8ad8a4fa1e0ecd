#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ks {

/// Percentile by linear interpolation between closest ranks, the same rule as
/// numpy.percentile's default, so numbers line up with vLLM's benchmark tool.
/// `sortedValues` must be sorted ascending; `p` is in [0, 100]. Empty input gives 0.
double percentileOfSorted(std::span<const double> sortedValues, double p);

/// Sorts a copy of `values` and returns the percentile (see percentileOfSorted).
double percentile(std::span<const double> values, double p);

/// The fixed set of percentiles every report shows.
struct PercentileSummary {
    double p50 = 0;
    double p90 = 0;
    double p95 = 0;
    double p99 = 0;
    double max = 0;
    double mean = 0;
    int count = 0;
};

PercentileSummary summarize(std::vector<double> values);

/// The same summary by selection (nth_element) instead of a full sort: linear
/// time, for per-tick live statistics. Reorders `values`.
PercentileSummary summarizeBySelection(std::vector<double>& values);

/// The same summary of non-negative 32-bit integers held in several spans,
/// each value divided by `divisor` (microsecond gaps to milliseconds), without
/// copying them (below 8192 values, a copy and a selection): two counting passes,
/// on the high then the low 16 bits. Values must be non-negative. Exact:
/// the order statistics are found, then interpolated as percentileOfSorted().
PercentileSummary summarizeIntegers(const std::vector<std::span<const std::int32_t>>& parts, double divisor);

} // namespace ks
