#pragma once

#include "compare/calibration.h"
#include "compare/configruns.h"
#include "compare/requestseries.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// What every configuration of an arm is compared against.
struct LatencyBaseline {
    const ConfigRuns* group = nullptr;
    nlohmann::json summary;
    RepeatValues repeats;
    std::vector<Series> series; ///< empty without intervals
};

/// How the intervals are made for this arm.
struct IntervalPlan {
    int resamples = 1000; ///< 0: ratios without intervals
    quint64 seed = 1;
    double confidence = 0.95;
    /// The calibration arm that speaks for this arm's baseline, or null.
    const Calibration::Arm* calibration = nullptr;
    QString calibrationCitation; ///< the calibration's citation, when used
    QString calibrationProblem; ///< why a given calibration was not used; empty if none was given or it was
    nlohmann::json calibrationJson; ///< `run_to_run.calibration` when used
};

/// TTFT, TPOT, ITL and E2E of one configuration against the baseline: fills
/// `entry`'s metric values, `ci95`, `ratio` (latencies), `ratio_ci95`,
/// `significant`, `within_run_significant`, `rounds_needed` and `run_to_run`
/// (docs/metrics.md, "Intervals"). `summary` is summaryOf(group).
void addLatencyRatios(nlohmann::json& entry, const ConfigRuns& group, const nlohmann::json& summary,
    const RepeatValues& repeats, const LatencyBaseline& baseline, const IntervalPlan& plan);

} // namespace ks
