#pragma once

#include "metrics/bootstrap.h"

#include <map>
#include <optional>

namespace ks {

/// How a comparison's interval covers the spread between runs
/// (docs/metrics.md, "Intervals"). Nothing here is a figure measured on
/// somebody else's machine: the spread comes from the user's own runs, or it
/// is said to be unknown.
enum class RunToRunMethod {
    WithinRun, ///< one run on a side, no calibration: the block bootstrap alone; run-to-run not measured
    Calibrated, ///< one run on a side, with an A/A calibration of the baseline
    Rounds, ///< repeats on both sides, paired by round
};

/// "within-run", "calibrated", "rounds": the `ci95.method` of compare --json.
const char* runToRunMethodName(RunToRunMethod method);

/// One statistic's value per round (1, 2, ...) on one side.
using RoundValues = std::map<int, double>;

/// The spread of log(other / baseline) between rounds, from the rounds both
/// sides ran: the sample standard deviation of the per-round log ratios, with
/// n - 1 degrees of freedom. With fewer than two shared rounds, and at least
/// two rounds on each side, the unpaired spread of the two sides' log values
/// (Welch) instead. nullopt when neither can be had.
struct RoundSpread {
    int rounds = 0; ///< the paired rounds (or the smaller side, unpaired)
    double pairSd = 0; ///< sd of one round's log ratio
    double df = 0; ///< its degrees of freedom
    bool paired = true;
    /// The mean of the rounds' log ratios (unpaired: the difference of the sides' mean logs).
    double meanLog = 0;
};
std::optional<RoundSpread> roundSpread(const RoundValues& baseline, const RoundValues& other);

/// The interval of the rounds' ratio, exp(spread.meanLog) (the geometric mean
/// of each round's ratio to the baseline in the same round), at `confidence`:
/// Student's t over the rounds' log ratios, exp(meanLog +- t(df) * pairSd /
/// sqrt(rounds)), or as wide as `bootstrap` (the pooled requests' block
/// bootstrap) where that is wider: their own sampling noise is a floor no
/// spread between rounds goes under. Centred on the rounds' ratio, not on the
/// pooled one: a tail's pooled percentile follows the one round with the
/// slowest requests, and an interval about it missed an identical pair's truth.
///
/// Why t over the rounds and not a bootstrap over them: with the 2-5 rounds
/// people run, resampling three rounds can only draw ten distinct sets, and its
/// interval excludes the truth in about a quarter of A/A pairs when the rounds
/// differ more than their requests do (a closed loop that locks to the
/// engine's step phase). Student's t keeps its 95 % at any number of rounds.
Interval roundsInterval(const Interval& bootstrap, const RoundSpread& spread, double confidence);

/// The same from an A/A calibration: one run on each side, each as far from
/// its configuration's typical run as the calibration's runs were from each
/// other: ratio * exp(+-t(runs - 1) * sqrt(2) * logSd), or the bootstrap's where wider.
Interval calibratedInterval(
    double ratio, const Interval& bootstrap, double logSd, int calibrationRuns, double confidence);

/// A value's interval (one side, not a ratio) from the spread of its rounds'
/// log values about their mean, or from a calibration (sqrt(2) left out).
Interval valueInterval(double value, const Interval& bootstrap, double logSd, double df, int runs, double confidence);

/// About how many paired rounds a ratio would need for 80 % power to see a
/// change of `difference` (0.05: 5 %) at `confidence`: the least n with
/// (t(n - 1) + z(0.8)) * max(pairSd / sqrt(n), bootstrapHalfWidth * sqrt(roundsNow / n)) <= log(1 + difference).
/// The second term is the pooled requests' own noise, which shrinks as rounds
/// add requests. nullopt past 1000 rounds, or when the spread is not finite.
std::optional<int> roundsNeeded(
    double pairSd, double bootstrapHalfWidth, int roundsNow, double confidence, double difference = 0.05);

/// Half the width of `interval` in logs; 0 when it is not positive.
double logHalfWidth(const Interval& interval);

} // namespace ks
