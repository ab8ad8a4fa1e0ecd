#pragma once

#include "compare/comparegate.h"
#include "compare/comparisontypes.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace ks {

/// A ratio the rounds must decide: `[ARM:]METRIC.STAT` of a repeats `until`.
struct RatioTarget {
    QString arm; ///< empty: every arm the rounds repeat (RoundRule::arms)
    QString ratio; ///< "ttft_ms.p99"
};

/// When repeats that run until decided stop (docs/experiments.md, "Repeats").
struct RoundRule {
    int min = 2; ///< the first round looked at
    int max = 2; ///< the budget: the last round
    std::vector<RatioTarget> ratios;
    double halfWidth = 0.05; ///< decided once the interval is within ×/÷ (1 + halfWidth)
    std::vector<GateCondition> failIf; ///< ratio conditions: decided once the interval is clear of each threshold
    QStringList arms; ///< the plain arms that run until decided
};

/// One chosen ratio of one non-baseline configuration after a round.
struct RoundRatio {
    QString arm;
    QString config; ///< empty when the comparison had no such arm or no configuration to compare
    QString ratio; ///< "ttft_ms.p99"
    std::optional<double> value;
    std::optional<std::pair<double, double>> ci95; ///< at the rounds' confidence (the line's `confidence`)
    bool decided = false;
};

/// The decision after a round (a run file's `round` line, docs/formats.md).
struct RoundDecision {
    int round = 0;
    bool decided = false; ///< every chosen ratio is decided
    QString stop; ///< empty (another round follows), "decided", "budget" or "stopped"
    std::vector<RoundRatio> ratios;
    int max = 0; ///< the budget of rounds
    double halfWidth = 0;
    double confidence = 0; ///< of the intervals
    QString problem; ///< why the comparison could not be made; empty when it was
};

/// Decides after `round` from `compare` (compareRuns' output, intervals at the
/// rounds' confidence): a ratio is decided when its interval's half-width in
/// logs is within log(1 + halfWidth), or, where `failIf` has thresholds on that
/// ratio, when the interval lies wholly above or below each of them. A missing
/// or non-finite interval is undecided. Stops "decided" when every chosen ratio
/// of every non-baseline configuration is, "budget" at rule.max.
RoundDecision decideRound(const Comparison& compare, const RoundRule& rule, int round, double confidence);

/// The `round` line (with "type").
nlohmann::json roundLine(const RoundDecision& decision);
/// A `round` line back; fields of the wrong type are left at their defaults.
RoundDecision roundDecisionFromLine(const nlohmann::json& line);

/// One sentence for people: "decided after round 4: every chosen ratio's
/// interval is narrower than ±5 % or clear of the gate", "budget of 10 rounds
/// spent: ttft_ms.p99 of stress (mns64) still undecided", or how many are decided so far.
QString roundSentence(const RoundDecision& decision);

} // namespace ks
