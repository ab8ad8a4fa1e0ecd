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

PercentileSummary summarizeBySelection(std::vector<double>& values)
{
    PercentileSummary s;
    if (values.empty())
        return s;
    const std::size_t last = values.size() - 1;
    auto lowerBound = values.begin(); // everything before it is <= the previous rank
    auto at = [&](double p) {
        const double rank = p / 100.0 * double(last);
        const auto lower = std::size_t(std::floor(rank));
        const auto nth = values.begin() + std::ptrdiff_t(lower);
        std::nth_element(lowerBound, nth, values.end());
        lowerBound = nth;
        const double low = *nth;
        if (lower == last)
            return low;
        const double high = *std::min_element(nth + 1, values.end());
        return low + (high - low) * (rank - double(lower));
    };
    s.p50 = at(50);
    s.p90 = at(90);
    s.p95 = at(95);
    s.p99 = at(99);
    s.max = *std::max_element(lowerBound, values.end());
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    s.count = int(values.size());
    return s;
}

} // namespace ks
