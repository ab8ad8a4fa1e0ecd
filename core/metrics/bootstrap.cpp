#include "metrics/bootstrap.h"

#include "metrics/percentiles.h"

#include <algorithm>
#include <random>

namespace ks {

namespace {

// The p-th percentile of a scratch buffer, by selection rather than a full sort.
double selectPercentile(std::vector<double>& v, double p)
{
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(v.size() - 1);
    const auto lower = std::size_t(rank);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(lower), v.end());
    const double low = v[lower];
    if (lower + 1 >= v.size())
        return low;
    const double high = *std::min_element(v.begin() + std::ptrdiff_t(lower) + 1, v.end());
    return low + (high - low) * (rank - double(lower));
}

double resampledPercentile(
    const std::vector<double>& values, double p, std::mt19937_64& rng, std::vector<double>& scratch)
{
    std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
    scratch.resize(values.size());
    for (double& x : scratch)
        x = values[pick(rng)];
    return selectPercentile(scratch, p);
}

Interval intervalOf(std::vector<double>& estimates, double confidence)
{
    std::sort(estimates.begin(), estimates.end());
    const double tail = (1.0 - confidence) / 2.0 * 100.0;
    return { percentileOfSorted(estimates, tail), percentileOfSorted(estimates, 100.0 - tail) };
}

} // namespace

Interval bootstrapPercentileCi(
    const std::vector<double>& values, double p, int resamples, quint64 seed, double confidence)
{
    if (values.empty() || resamples < 1)
        return {};
    std::mt19937_64 rng(seed);
    std::vector<double> scratch;
    std::vector<double> estimates;
    estimates.reserve(std::size_t(resamples));
    for (int i = 0; i < resamples; ++i)
        estimates.push_back(resampledPercentile(values, p, rng, scratch));
    return intervalOf(estimates, confidence);
}

Interval bootstrapRatioCi(const std::vector<double>& baseline, const std::vector<double>& other, double p,
    int resamples, quint64 seed, double confidence)
{
    if (baseline.empty() || other.empty() || resamples < 1)
        return {};
    std::mt19937_64 rng(seed);
    std::vector<double> scratch;
    std::vector<double> estimates;
    estimates.reserve(std::size_t(resamples));
    for (int i = 0; i < resamples; ++i) {
        const double base = resampledPercentile(baseline, p, rng, scratch);
        const double value = resampledPercentile(other, p, rng, scratch);
        if (base > 0)
            estimates.push_back(value / base);
    }
    if (estimates.empty())
        return {};
    return intervalOf(estimates, confidence);
}

} // namespace ks
