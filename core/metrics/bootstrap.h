#pragma once

#include <QtGlobal>

#include <span>
#include <vector>

namespace ks {

struct Interval {
    double low = 0;
    double high = 0;
    bool contains(double v) const { return v >= low && v <= high; }
};

/// Percentile-bootstrap confidence interval of the p-th percentile (numpy's
/// linear rule) of `values`: `resamples` resamples with replacement from a
/// seeded generator, so the same inputs always give the same interval.
Interval bootstrapPercentileCi(
    const std::vector<double>& values, double p, int resamples, quint64 seed, double confidence = 0.95);

/// Interval of percentile(other) / percentile(baseline), resampling both sides
/// independently. An interval that excludes 1.0 marks a real difference.
Interval bootstrapRatioCi(const std::vector<double>& baseline, const std::vector<double>& other, double p,
    int resamples, quint64 seed, double confidence = 0.95);

/// Both of the above for several percentiles at once, from one set of
/// resamples (each resample gives every percentile, by selection): what
/// compare needs per metric, for a third of the draws. `ps` ascending.
///
/// With a block length above 1 this is a circular moving-block bootstrap:
/// each resample joins blocks of that many consecutive values (in the order
/// the requests ran), so requests that shared a batch, a queue or a phase of
/// the engine's steps stay together and the interval keeps their correlation
/// instead of treating them as independent draws (docs/metrics.md, "Intervals").
struct BootstrapIntervals {
    std::vector<Interval> other; ///< per p: the interval of percentile(other)
    std::vector<Interval> ratio; ///< per p: of percentile(other) / percentile(baseline)
};
BootstrapIntervals bootstrapIntervals(const std::vector<double>& baseline, const std::vector<double>& other,
    std::span<const double> ps, int resamples, quint64 seed, double confidence = 0.95, std::size_t baselineBlock = 1,
    std::size_t otherBlock = 1);

/// The block length for a run of `n` values whose requests ran `concurrency`
/// at a time on average (Little's law: the sum of their durations over the
/// run's span): at least one "generation" of concurrent requests and n^(1/3),
/// the usual rate for a moving-block bootstrap, and at most n / 8 so that a
/// resample still draws eight blocks. 1 for n < 16.
std::size_t blockLength(std::size_t n, double concurrency);

} // namespace ks
