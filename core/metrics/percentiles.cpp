#include "metrics/percentiles.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ks {

double percentileOfSorted(std::span<const double> sortedValues, double p)
{
    if (sortedValues.empty())
        return 0.0;
    const double clamped = std::clamp(p, 0.0, 100.0);
    const double rank = clamped / 100.0 * double(sortedValues.size() - 1);
    const auto lower = std::size_t(std::floor(rank));
    const auto upper = std::min(lower + 1, sortedValues.size() - 1);
    const double fraction = rank - double(lower);
    return sortedValues[lower] + (sortedValues[upper] - sortedValues[lower]) * fraction;
}

double percentile(std::span<const double> values, double p)
{
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return percentileOfSorted(sorted, p);
}

PercentileSummary summarize(std::vector<double> values)
{
    PercentileSummary s;
    if (values.empty())
        return s;
    std::sort(values.begin(), values.end());
    s.p50 = percentileOfSorted(values, 50);
    s.p90 = percentileOfSorted(values, 90);
    s.p95 = percentileOfSorted(values, 95);
    s.p99 = percentileOfSorted(values, 99);
    s.max = values.back();
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    s.count = int(values.size());
    return s;
}

} // namespace ks
