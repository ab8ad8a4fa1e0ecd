#pragma once

#include "metrics/bootstrap.h"

#include <optional>
#include <vector>

namespace ks {

/// The spread of one statistic over an arm's repeats (one value per repeat,
/// e.g. each repeat's TTFT median): how much a configuration moves run to run.
struct RepeatSpread {
    int n = 0;
    double mean = 0;
    double sd = 0; ///< sample standard deviation (n - 1)
    double cv = 0; ///< sd / mean; 0 when the mean is 0
    std::optional<Interval> tCi95; ///< Student's t-interval of the mean; needs n >= 2
};
RepeatSpread repeatSpread(const std::vector<double>& values);

/// Welch's 95 % t-interval of mean(other) - mean(baseline) over repeat values;
/// nullopt unless both sides have at least 2 repeats. An interval that excludes
/// 0 says the difference is larger than the run-to-run noise.
std::optional<Interval> welchDifferenceCi95(const std::vector<double>& baseline, const std::vector<double>& other);

/// Student's t quantile: P(T <= t) = p for `df` degrees of freedom (df may be fractional).
double studentTQuantile(double p, double df);

} // namespace ks
