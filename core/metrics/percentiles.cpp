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

PercentileSummary summarizeIntegers(const std::vector<std::span<const std::int32_t>>& parts, double divisor)
{
    PercentileSummary s;
    std::size_t total = 0;
    for (std::span<const std::int32_t> part : parts)
        total += part.size();
    // Below this many values a copy and a selection is cheaper than the two
    // 512 KiB count tables, and gives the same figures (same order of the sum).
    constexpr std::size_t kSelectionBelow = 8192;
    if (total < kSelectionBelow) {
        std::vector<double> values;
        values.reserve(total);
        for (std::span<const std::int32_t> part : parts)
            for (std::int32_t v : part)
                values.push_back(double(v) / divisor);
        return summarizeBySelection(values);
    }
    std::uint64_t n = 0;
    double sum = 0;
    std::int32_t maxValue = 0;
    std::vector<std::uint64_t> high(65536, 0);
    for (std::span<const std::int32_t> part : parts) {
        for (std::int32_t v : part) {
            ++high[std::uint32_t(v) >> 16];
            sum += double(v) / divisor;
            maxValue = std::max(maxValue, v);
        }
        n += part.size();
    }
    if (n == 0)
        return s;
    // The ranks the four percentiles interpolate between (numpy's linear rule).
    const double ps[] = { 50, 90, 95, 99 };
    std::vector<std::uint64_t> ranks;
    for (double p : ps) {
        const double rank = p / 100.0 * double(n - 1);
        const auto lower = std::uint64_t(std::floor(rank));
        ranks.push_back(lower);
        ranks.push_back(std::min(lower + 1, n - 1));
    }
    // First pass: which high bucket holds each rank, and its rank within it.
    std::vector<int> slotOfHigh(65536, -1);
    std::vector<std::uint32_t> highOf(ranks.size());
    std::vector<std::uint64_t> rankInBucket(ranks.size());
    std::vector<std::uint32_t> slotHighs;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        std::uint64_t below = 0;
        std::uint32_t h = 0;
        while (below + high[h] <= ranks[i])
            below += high[h++];
        highOf[i] = h;
        rankInBucket[i] = ranks[i] - below;
        if (slotOfHigh[h] < 0) {
            slotOfHigh[h] = int(slotHighs.size());
            slotHighs.push_back(h);
        }
    }
    // Second pass: the low 16 bits, only within those buckets.
    std::vector<std::vector<std::uint64_t>> low(slotHighs.size(), std::vector<std::uint64_t>(65536, 0));
    for (std::span<const std::int32_t> part : parts) {
        for (std::int32_t v : part) {
            const int slot = slotOfHigh[std::uint32_t(v) >> 16];
            if (slot >= 0)
                ++low[std::size_t(slot)][std::uint32_t(v) & 0xffff];
        }
    }
    std::vector<double> valueOfRank(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const std::vector<std::uint64_t>& counts = low[std::size_t(slotOfHigh[highOf[i]])];
        std::uint64_t below = 0;
        std::uint32_t l = 0;
        while (below + counts[l] <= rankInBucket[i])
            below += counts[l++];
        valueOfRank[i] = double(std::int64_t(highOf[i]) << 16 | l) / divisor;
    }
    auto at = [&](std::size_t k) {
        const double rank = ps[k] / 100.0 * double(n - 1);
        const double lowValue = valueOfRank[2 * k];
        const double highValue = valueOfRank[2 * k + 1];
        return lowValue + (highValue - lowValue) * (rank - std::floor(rank));
    };
    s.p50 = at(0);
    s.p90 = at(1);
    s.p95 = at(2);
    s.p99 = at(3);
    s.max = double(maxValue) / divisor;
    s.mean = sum / double(n);
    s.count = int(n);
    return s;
}

} // namespace ks
