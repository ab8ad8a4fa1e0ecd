#include "metrics/loghistogram.h"

#include <algorithm>
#include <cmath>

namespace ks {

double LogHistogram::minValue()
{
    return std::ldexp(1.0, kMinExponent);
}

double LogHistogram::maxValue()
{
    return std::nextafter(std::ldexp(1.0, kMaxExponent), 0.0);
}

int LogHistogram::bucketOf(double value)
{
    // value = mantissa * 2^exponent with mantissa in [0.5, 1): the exponent picks
    // the power of two, the mantissa the linear sub-bucket within it.
    int exponent = 0;
    const double mantissa = std::frexp(value, &exponent);
    const int sub = std::min(kSubBuckets - 1, int((mantissa - 0.5) * 2.0 * kSubBuckets));
    return (exponent - 1 - kMinExponent) * kSubBuckets + sub;
}

double LogHistogram::middleOf(int bucket)
{
    const int exponent = bucket / kSubBuckets + kMinExponent;
    const int sub = bucket % kSubBuckets;
    const double width = std::ldexp(1.0, exponent) / kSubBuckets;
    return std::ldexp(1.0, exponent) + (sub + 0.5) * width;
}

void LogHistogram::add(double value)
{
    if (!(value >= 0)) // negative or NaN: not a latency
        return;
    if (m_count == 0) {
        m_min = m_max = value;
    } else {
        m_min = std::min(m_min, value);
        m_max = std::max(m_max, value);
    }
    ++m_count;
    m_sum += value;
    if (value == 0) {
        ++m_zeros;
        return;
    }
    ++m_buckets[std::size_t(bucketOf(std::clamp(value, minValue(), maxValue())))];
}

void LogHistogram::merge(const LogHistogram& other)
{
    if (other.m_count == 0)
        return;
    m_min = m_count == 0 ? other.m_min : std::min(m_min, other.m_min);
    m_max = m_count == 0 ? other.m_max : std::max(m_max, other.m_max);
    m_count += other.m_count;
    m_sum += other.m_sum;
    m_zeros += other.m_zeros;
    for (std::size_t i = 0; i < m_buckets.size(); ++i)
        m_buckets[i] += other.m_buckets[i];
}

void LogHistogram::clear()
{
    std::fill(m_buckets.begin(), m_buckets.end(), 0);
    m_zeros = m_count = 0;
    m_sum = m_min = m_max = 0;
}

double LogHistogram::orderStatistic(std::uint64_t rank) const
{
    if (rank == 0)
        return m_min;
    if (rank + 1 >= m_count)
        return m_max;
    if (rank < m_zeros)
        return 0;
    std::uint64_t seen = m_zeros;
    for (int b = 0; b < kBuckets; ++b) {
        seen += m_buckets[std::size_t(b)];
        if (seen > rank)
            return std::clamp(middleOf(b), m_min, m_max);
    }
    return m_max;
}

double LogHistogram::percentile(double p) const
{
    if (m_count == 0)
        return 0;
    // numpy's linear rule, as percentileOfSorted(): interpolate between the
    // order statistics around the fractional rank.
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(m_count - 1);
    const auto lower = std::uint64_t(std::floor(rank));
    const double low = orderStatistic(lower);
    if (lower + 1 >= m_count)
        return low;
    const double high = orderStatistic(lower + 1);
    return low + (high - low) * (rank - double(lower));
}

PercentileSummary LogHistogram::summary() const
{
    PercentileSummary s;
    if (m_count == 0)
        return s;
    s.p50 = percentile(50);
    s.p90 = percentile(90);
    s.p95 = percentile(95);
    s.p99 = percentile(99);
    s.max = m_max;
    s.mean = m_sum / double(m_count);
    s.count = int(m_count);
    return s;
}

} // namespace ks
