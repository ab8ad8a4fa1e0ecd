#pragma once

#include "compare/rounddecision.h"
#include "experiment/roundjudge.h"
#include "experiment/roundschedule.h"

#include <optional>
#include <vector>

namespace ks {

/// Where an experiment is among its visits (docs/experiments.md, "Repeats"):
/// the RoundSchedule and a cursor into it, the configurations whose server
/// could not start (their later visits are skipped), and for repeats that run
/// until decided the RoundJudge and the rounds it has judged. Writes nothing:
/// the runner writes the decisions it is given as `round` lines.
class VisitOrder {
public:
    VisitOrder(const ExperimentSpec& spec, const QString& outPath);

    /// The visit now, or nullopt past the last; `configs`: the configurations there are now.
    std::optional<Visit> current(std::size_t configs) const { return m_schedule.at(m_visit, configs); }
    /// Moves past the current visit; returns the round it ended when it was the last of one.
    std::optional<int> advance(std::size_t configs);
    /// A configuration whose server could not start.
    bool failed(std::size_t config) const { return config < m_failed.size() && m_failed[config]; }
    void markFailed(std::size_t config);
    /// `round` ended with the experiment going on: whether it is for the judge now
    /// (repeats that run until decided, whose rounds have not ended yet).
    bool roundEnded(int round);
    /// The decision after `round` (it reads the run file, so flush it first); the
    /// schedule ends there when it stops. Empty before the first look.
    std::optional<RoundDecision> judge(int round);
    /// For an experiment stopped before its rounds were decided, once: the decision
    /// to write as it closes; empty without a judge, once decided, or before any round ended.
    std::optional<RoundDecision> stopped();
    /// The runs planned before the current visit, and in all with `configs` configurations.
    int runsBefore() const { return m_schedule.runsBefore(m_visit); }
    int totalRuns(std::size_t configs) const { return m_schedule.totalRuns(configs); }

private:
    RoundSchedule m_schedule;
    std::size_t m_visit = 0; ///< index into m_schedule
    std::vector<bool> m_failed;
    std::optional<RoundJudge> m_judge; ///< set for repeats that run until decided
    int m_roundsDone = 0;
    bool m_roundsEnded = false; ///< a round line with a stop is written
};

} // namespace ks
