#pragma once

#include "metrics/percentiles.h"

#include <cstdint>
#include <vector>

namespace ks {

/// A log-linear histogram of non-negative values (HDR-style) for cumulative
/// statistics of runs of any length in a fixed amount of memory.
///
/// Each power of two [2^e, 2^(e+1)) is split into kSubBuckets equal linear
/// buckets, so a bucket is at most 1/kSubBuckets of its lower edge wide. A
/// percentile is read as numpy's linear rule over the order statistics, each
/// order statistic taken as the middle of its bucket (clamped to the exact
/// min and max), so:
///
///   |reported - exact| <= kRelativeError * exact    (kRelativeError = 1/256)
///
/// for every percentile of values in [kMinValue, kMaxValue]. Zero is counted
/// exactly; values below kMinValue count as kMinValue, above kMaxValue as
/// kMaxValue. count, mean (from an exact sum) and max are exact. Memory is
/// fixed: kBuckets counters (about 64 KiB), whatever the number of values.
class LogHistogram {
public:
    static constexpr int kSubBuckets = 128;
    static constexpr double kRelativeError = 1.0 / (2.0 * kSubBuckets);
    static constexpr int kMinExponent = -20; ///< 2^-20: below a nanosecond when values are milliseconds
    static constexpr int kMaxExponent = 44; ///< 2^44 ms: over 500 years
    static constexpr int kBuckets = (kMaxExponent - kMinExponent) * kSubBuckets;
    static double minValue();
    static double maxValue();

    void add(double value);
    /// Adds every value `other` holds, as if each had been add()ed here.
    void merge(const LogHistogram& other);
    void clear();
    std::uint64_t count() const { return m_count; }
    /// The value at percentile `p` in [0, 100], within kRelativeError.
    double percentile(double p) const;
    /// p50/p90/p95/p99 within the bound; max, mean and count exact.
    PercentileSummary summary() const;

private:
    static int bucketOf(double value);
    static double middleOf(int bucket);
    /// The (0-based) rank-th smallest value, within the bound.
    double orderStatistic(std::uint64_t rank) const;

    std::vector<std::uint64_t> m_buckets = std::vector<std::uint64_t>(kBuckets, 0);
    std::uint64_t m_zeros = 0;
    std::uint64_t m_count = 0;
    double m_sum = 0;
    double m_min = 0;
    double m_max = 0;
};

} // namespace ks
