#pragma once

#include "spec/experimentspec.h"

#include <optional>
#include <vector>

namespace ks {

/// One configuration's turn: the server started for it (as the spec says) and
/// the arms of one round run against it.
struct Visit {
    std::size_t config = 0;
    /// 0: every run of every arm, one after another (blocked); r >= 1: round r
    /// of each plain arm with r repeats or more, and in round 1 also every sweep
    /// arm whole and the probe passes.
    int round = 0;
};

/// The order in which an experiment visits its configurations (docs/experiments.md,
/// "Repeats"). Blocked (the spec's "order", a search, or arms that run once):
/// each configuration once, in spec order, with all its repeats. Interleaved:
/// round 1 of every configuration, then round 2, and so on, each round in an
/// order drawn from the spec's `order_seed`, so a machine that drifts, or a
/// first run that meets a cold machine, does not always favour the same
/// configuration. (Compare still takes the spec's first configuration as the
/// baseline: run lines carry `config_index`.) Knows no server and no clock.
class RoundSchedule {
public:
    explicit RoundSchedule(const ExperimentSpec& spec);

    /// The i-th visit, or nullopt past the last; `configs`: the configurations
    /// there are now (a search appends them as it goes).
    std::optional<Visit> at(std::size_t i, std::size_t configs) const;
    bool interleaved() const { return m_interleaved; }
    /// The rounds planned: the most repeats of a plain arm (1 when blocked).
    int rounds() const { return m_rounds; }
    /// Whether visit i is the last of its round (interleaved).
    bool endsRound(std::size_t i) const;
    /// No visit after round `round` (repeats decided, or their budget spent).
    void endAfterRound(int round);
    /// The runs planned before visit i, for the progress index (sweeps may stop early).
    int runsBefore(std::size_t i) const;
    /// The runs planned in all, with `configs` configurations (blocked).
    int totalRuns(std::size_t configs) const;

private:
    std::vector<Visit> m_visits; ///< interleaved only
    std::vector<int> m_runsOfRound; ///< planned runs of one visit, by round (0: blocked)
    int m_rounds = 1;
    bool m_interleaved = false;
};

} // namespace ks
