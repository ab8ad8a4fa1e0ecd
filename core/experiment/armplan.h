#pragma once

#include "metrics/sweepcapacity.h"
#include "spec/experimentspec.h"
#include "workload/loadspec.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

/// One run of an arm: its load and how it is named and marked in the run file.
struct PlannedStep {
    LoadSpec load; ///< runLabel is CONFIG/ARM, CONFIG/ARM@VALUE, ... #N for repeats
    QString armName; ///< the `arm` of its run and summary lines: ARM or ARM@VALUE
    nlohmann::json runFields = nlohmann::json::object(); ///< added to the run line: `sweep`, `repeat`
};

/// The runs of one arm against one configuration in one visit (docs/experiments.md,
/// "Sweeps" and "Repeats"): a plain arm once, or `repeats` times; a sweep one
/// step after another, each step's load chosen from the results of the steps
/// before it (the automatic sweep's rates come from its first two steps), until
/// the values run out or the sweep stops early. In round r of interleaved
/// repeats (Visit::round), a plain arm runs its repeat r alone (none when it
/// has fewer repeats) and a sweep runs whole in round 1, not after. Knows no
/// server and no clock.
class ArmPlan {
public:
    /// `round` 0: every repeat (blocked order).
    ArmPlan(const ExperimentSpec& spec, const ConfigSpec& config, const ArmSpec& arm, int round = 0);

    /// The next run, or nullopt when the arm is done for this configuration.
    std::optional<PlannedStep> next();
    /// Takes the finished run's summary (summarizeRun() plus the runner's
    /// fields), adds `sweep` / `repeat` (and `sweep.stop` when the sweep ends
    /// early here) and decides what follows.
    void stepFinished(nlohmann::json& summary);
    /// Why the sweep ended before its last value; empty otherwise.
    QString stopReason() const { return m_stopReason; }
    /// The runs this arm will make per configuration if no sweep stops early.
    static int estimatedRuns(const ArmSpec& arm);
    /// The steps of each configuration: its arms, then its probe passes (two when they span a restart).
    static std::size_t stepsPerConfig(const ExperimentSpec& spec);
    /// The runs of each configuration if no sweep stops early (sweep steps, repeats and probe passes count one each).
    static std::size_t runsPerConfig(const ExperimentSpec& spec);
    /// The runs of one visit in `round` (0: blocked, runsPerConfig()) if no sweep stops early.
    static std::size_t runsInRound(const ExperimentSpec& spec, int round);

private:
    struct Step {
        QString kind; ///< rate, concurrency, synchronous, throughput
        std::optional<double> value;
    };
    std::optional<Step> stepAt(std::size_t index) const;

    const ExperimentSpec& m_spec;
    const ConfigSpec& m_config;
    ArmSpec m_arm;
    int m_round = 0;
    std::size_t m_step = 0; ///< index of the step now running or next
    int m_repeat = 0; ///< repeats of m_step started so far
    std::optional<Step> m_current;
    std::vector<double> m_autoRates; ///< filled after the throughput step of an automatic sweep
    double m_syncRate = 0;
    bool m_valuePassed = true; ///< every repeat of the current step so far
    int m_failedInARow = 0;
    QString m_stopReason;
    bool m_done = false;
};

/// A sweep value as it appears in run names: "4", "0.5", "12.5".
QString sweepValueText(double value);

} // namespace ks
