#include "compare/runtorun.h"

#include "metrics/repeatstats.h"

#include <cmath>
#include <vector>

namespace ks {

namespace {

constexpr double kZ80 = 0.8416212335729143; // the standard normal's 80th percentile: 80 % power
constexpr int kMostRounds = 1000;

std::vector<double> logs(const RoundValues& values)
{
    std::vector<double> out;
    for (const auto& [round, v] : values)
        if (v > 0 && std::isfinite(v))
            out.push_back(std::log(v));
    return out;
}

Interval around(double ratio, double halfWidth)
{
    return { ratio * std::exp(-halfWidth), ratio * std::exp(halfWidth) };
}

// The wider of the bootstrap's own interval and one of `halfWidth` about `ratio`.
Interval widest(double ratio, const Interval& bootstrap, double halfWidth)
{
    if (!(ratio > 0) || !std::isfinite(halfWidth))
        return bootstrap;
    return halfWidth > logHalfWidth(bootstrap) ? around(ratio, halfWidth) : bootstrap;
}

double tQuantile(double confidence, double df)
{
    return studentTQuantile(1.0 - (1.0 - confidence) / 2.0, df);
}

} // namespace

const char* runToRunMethodName(RunToRunMethod method)
{
    switch (method) {
    case RunToRunMethod::Calibrated:
        return "calibrated";
    case RunToRunMethod::Rounds:
        return "rounds";
    case RunToRunMethod::WithinRun:
        break;
    }
    return "within-run";
}

double logHalfWidth(const Interval& interval)
{
    if (!(interval.low > 0) || !(interval.high >= interval.low))
        return 0;
    return (std::log(interval.high) - std::log(interval.low)) / 2.0;
}

std::optional<RoundSpread> roundSpread(const RoundValues& baseline, const RoundValues& other)
{
    std::vector<double> ratios;
    for (const auto& [round, base] : baseline) {
        const auto it = other.find(round);
        if (it != other.end() && base > 0 && it->second > 0 && std::isfinite(base) && std::isfinite(it->second))
            ratios.push_back(std::log(it->second / base));
    }
    if (ratios.size() >= 2) {
        double mean = 0;
        for (double d : ratios)
            mean += d / double(ratios.size());
        return RoundSpread { int(ratios.size()), repeatSpread(ratios).sd, double(ratios.size() - 1), true, mean };
    }
    // Rounds that do not line up (files run on different days, merged): Welch's
    // spread of the difference of the two sides' mean logs, as one round's.
    const std::vector<double> a = logs(baseline), b = logs(other);
    if (a.size() < 2 || b.size() < 2)
        return std::nullopt;
    const double va = std::pow(repeatSpread(a).sd, 2) / double(a.size()),
                 vb = std::pow(repeatSpread(b).sd, 2) / double(b.size());
    const double se2 = va + vb;
    const int n = int(std::min(a.size(), b.size()));
    double meanA = 0, meanB = 0;
    for (double x : a)
        meanA += x / double(a.size());
    for (double x : b)
        meanB += x / double(b.size());
    if (!(se2 > 0))
        return RoundSpread { n, 0, double(n - 1), false, meanB - meanA };
    const double df = se2 * se2 / (va * va / double(a.size() - 1) + vb * vb / double(b.size() - 1));
    return RoundSpread { n, std::sqrt(se2 * n), df, false, meanB - meanA };
}

Interval roundsInterval(const Interval& bootstrap, const RoundSpread& spread, double confidence)
{
    if (spread.rounds < 2 || !(spread.df > 0))
        return bootstrap;
    const double t = tQuantile(confidence, spread.df) * spread.pairSd / std::sqrt(double(spread.rounds));
    return around(std::exp(spread.meanLog), std::max(t, logHalfWidth(bootstrap)));
}

Interval calibratedInterval(
    double ratio, const Interval& bootstrap, double logSd, int calibrationRuns, double confidence)
{
    if (calibrationRuns < 2)
        return bootstrap;
    return widest(ratio, bootstrap, tQuantile(confidence, calibrationRuns - 1) * std::sqrt(2.0) * logSd);
}

Interval valueInterval(double value, const Interval& bootstrap, double logSd, double df, int runs, double confidence)
{
    if (runs < 1 || !(df > 0))
        return bootstrap;
    return widest(value, bootstrap, tQuantile(confidence, df) * logSd / std::sqrt(double(runs)));
}

std::optional<int> roundsNeeded(
    double pairSd, double bootstrapHalfWidth, int roundsNow, double confidence, double difference)
{
    if (!std::isfinite(pairSd) || !std::isfinite(bootstrapHalfWidth) || pairSd < 0 || !(difference > 0))
        return std::nullopt;
    const double target = std::log(1.0 + difference);
    // The bootstrap's half-width is at `confidence`; as a standard error it is that over z.
    const double zConfidence = tQuantile(confidence, 1e9);
    const double bootstrapSe = bootstrapHalfWidth / zConfidence;
    for (int n = 2; n <= kMostRounds; ++n) {
        const double se
            = std::max(pairSd / std::sqrt(double(n)), bootstrapSe * std::sqrt(double(std::max(1, roundsNow)) / n));
        if ((tQuantile(confidence, n - 1) + kZ80) * se <= target)
            return n;
    }
    return std::nullopt;
}

} // namespace ks
