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
struct BootstrapIntervals {
    std::vector<Interval> other; ///< per p: the interval of percentile(other)
    std::vector<Interval> ratio; ///< per p: of percentile(other) / percentile(baseline)
};
BootstrapIntervals bootstrapIntervals(const std::vector<double>& baseline, const std::vector<double>& other,
    std::span<const double> ps, int resamples, quint64 seed, double confidence = 0.95);

} // namespace ks
