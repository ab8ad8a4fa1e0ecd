#pragma once

#include "compare/comparisontypes.h"
#include "drift/driftanalysis.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace ks {

/// One `compare --fail-if` condition (docs/ci.md): `[ARM:]METRIC OP NUMBER[x]`,
/// e.g. `stress:ttft_ms.p99 > 1.10x` (a ratio against the baseline) or
/// `ttft_ms.p99 > 800` (milliseconds), `errors > 0`, `drift > 0`.
struct GateCondition {
    enum class Op { Greater, GreaterEqual, Less, LessEqual };
    QString text; ///< as written
    QString arm; ///< empty: every arm
    QString metric; ///< "ttft_ms.p99", "req_per_s", "errors", "drift", ...
    Op op = Op::Greater;
    double threshold = 0;
    bool relative = false; ///< `x`: the ratio against the baseline configuration
};

/// A condition, or what is wrong with it.
std::variant<GateCondition, QString> parseGateCondition(const QString& text);
/// The metrics a condition may name, for help and errors.
QStringList gateMetrics();

/// One condition for one configuration of one arm.
struct GateVerdict {
    QString condition;
    QString arm;
    QString config;
    bool failed = false;
    double value = 0; ///< the point estimate (a ratio for relative conditions); NaN when there is none
    std::optional<std::pair<double, double>> interval; ///< the interval, when one was used
    /// How the configuration's intervals were made ("within-run", "calibrated", "rounds";
    /// compare/intervalnotes.h), empty when the comparison does not say or the metric has none.
    QString method;
    /// False when the decision rests on one run's interval: the reason then says so.
    bool runToRunMeasured = true;
    bool undecided = false; ///< the interval spans the threshold: neither shown past it nor clear of it
    QString reason; ///< the value, the interval and why it passes or fails, then how the interval was made
};

struct GateOptions {
    bool strict = false; ///< judge by the point estimate, not the whole interval
    /// Configurations that are judged; empty: every configuration of an arm
    /// (relative conditions skip the arm's baseline).
    QStringList configs;
};

/// Judges every condition against `compare` (compareRuns' output) and, for
/// `drift` conditions, `drift` (nullptr: the files have no probe passes). A
/// condition fails only when the whole interval is past its threshold, or the
/// point estimate with `strict` or where there is no interval; a missing value
/// fails. Conditions naming an arm that is not there are returned in `unmatched`.
std::vector<GateVerdict> evaluateGate(const std::vector<GateCondition>& conditions, const Comparison& compare,
    const DriftReport* drift, const GateOptions& options, QStringList* unmatched);

/// JUnit XML: one test case per verdict, a <failure> for each failed one, the
/// interval's method as the property `ci95.method`.
QByteArray gateJunit(const std::vector<GateVerdict>& verdicts);
/// A Markdown summary fit for a CI comment: the outcome first, then every verdict.
QString gateMarkdown(const std::vector<GateVerdict>& verdicts, bool strict);

} // namespace ks
