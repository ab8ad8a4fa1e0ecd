#include "metrics/bootstrap.h"

#include "metrics/percentiles.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace ks {

namespace {

// A uniform index below n from one 64-bit draw (multiply-high: no division).
__extension__ typedef unsigned __int128 Wide;

std::size_t pick(std::mt19937_64& rng, std::size_t n)
{
    return std::size_t(Wide(rng()) * n >> 64);
}

// Fills `scratch` with a resample of `values` (blocks of `block` consecutive
// values from random starts, wrapping at the end), then reads each p
// (ascending) by selection: every nth_element works only on what lies above
// the last one.
void resampledPercentiles(const std::vector<double>& values, std::span<const double> ps, std::size_t block,
    std::mt19937_64& rng, std::vector<double>& scratch, std::vector<double>& out)
{
    const std::size_t n = values.size();
    scratch.resize(n);
    if (block <= 1) {
        for (double& x : scratch)
            x = values[pick(rng, n)];
    } else {
        block = std::min(block, n);
        for (std::size_t filled = 0; filled < n;) {
            std::size_t at = pick(rng, n);
            for (std::size_t k = 0; k < block && filled < n; ++k) {
                scratch[filled++] = values[at];
                at = at + 1 == n ? 0 : at + 1;
            }
        }
    }
    out.clear();
    auto from = scratch.begin();
    for (double p : ps) {
        const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(n - 1);
        const auto lower = std::size_t(rank);
        const auto nth = scratch.begin() + std::ptrdiff_t(lower);
        std::nth_element(from, nth, scratch.end());
        from = nth;
        const double low = *nth;
        if (lower + 1 >= n) {
            out.push_back(low);
            continue;
        }
        const double high = *std::min_element(nth + 1, scratch.end());
        out.push_back(low + (high - low) * (rank - double(lower)));
    }
}

Interval intervalOf(std::vector<double>& estimates, double confidence)
{
    if (estimates.empty())
        return {};
    std::sort(estimates.begin(), estimates.end());
    const double tail = (1.0 - confidence) / 2.0 * 100.0;
    return { percentileOfSorted(estimates, tail), percentileOfSorted(estimates, 100.0 - tail) };
}

} // namespace

BootstrapIntervals bootstrapIntervals(const std::vector<double>& baseline, const std::vector<double>& other,
    std::span<const double> ps, int resamples, quint64 seed, double confidence, std::size_t baselineBlock,
    std::size_t otherBlock)
{
    BootstrapIntervals out;
    out.other.resize(ps.size());
    out.ratio.resize(ps.size());
    if (other.empty() || resamples < 1)
        return out;
    std::mt19937_64 rng(seed);
    std::vector<double> scratch, mine, base;
    std::vector<std::vector<double>> otherEstimates(ps.size()), ratioEstimates(ps.size());
    for (int i = 0; i < resamples; ++i) {
        if (!baseline.empty())
            resampledPercentiles(baseline, ps, baselineBlock, rng, scratch, base);
        resampledPercentiles(other, ps, otherBlock, rng, scratch, mine);
        for (std::size_t k = 0; k < ps.size(); ++k) {
            otherEstimates[k].push_back(mine[k]);
            if (!baseline.empty() && base[k] > 0)
                ratioEstimates[k].push_back(mine[k] / base[k]);
        }
    }
    for (std::size_t k = 0; k < ps.size(); ++k) {
        out.other[k] = intervalOf(otherEstimates[k], confidence);
        out.ratio[k] = intervalOf(ratioEstimates[k], confidence);
    }
    return out;
}

std::size_t blockLength(std::size_t n, double concurrency)
{
    if (n < 16)
        return 1;
    const double wanted = std::max(std::cbrt(double(n)), std::isfinite(concurrency) ? concurrency : 1.0);
    return std::clamp<std::size_t>(std::size_t(std::ceil(wanted)), 1, n / 8);
}

Interval bootstrapPercentileCi(
    const std::vector<double>& values, double p, int resamples, quint64 seed, double confidence)
{
    const double ps[] = { p };
    return bootstrapIntervals({}, values, ps, resamples, seed, confidence).other[0];
}

Interval bootstrapRatioCi(const std::vector<double>& baseline, const std::vector<double>& other, double p,
    int resamples, quint64 seed, double confidence)
{
    if (baseline.empty())
        return {};
    const double ps[] = { p };
    return bootstrapIntervals(baseline, other, ps, resamples, seed, confidence).ratio[0];
}

} // namespace ks
