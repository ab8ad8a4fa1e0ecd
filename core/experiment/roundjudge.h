#pragma once

#include "compare/rounddecision.h"
#include "spec/experimentspec.h"

#include <optional>

namespace ks {

/// Judges repeats that run until decided (docs/experiments.md, "Repeats"):
/// after a round, the run file written so far is read back and compared (the
/// spec's first configuration the baseline, intervals at the confidence of one
/// look of max - min + 1: sequentialconfidence.h) and the rule decides.
class RoundJudge {
public:
    /// `spec` has `rounds.until`; `path` is the run file being written.
    RoundJudge(const ExperimentSpec& spec, QString path);

    /// The decision after `round`; nullopt before the rule's first look (min).
    /// The caller has flushed the file. A file or comparison that fails is an
    /// undecided round naming the problem.
    std::optional<RoundDecision> judge(int round) const;
    /// The line for an experiment stopped after `round` rounds before a decision.
    RoundDecision stopped(int round) const;

private:
    RoundRule m_rule;
    QString m_path;
    QString m_baseline;
    double m_confidence;
};

} // namespace ks
