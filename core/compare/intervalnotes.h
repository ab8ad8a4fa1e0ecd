#pragma once

#include "compare/comparisontypes.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

/// How a configuration's intervals were made, in words, from compareRuns'
/// `run_to_run`, `rounds_needed` and `steady` (docs/metrics.md, "Intervals";
/// docs/formats.md, `compare --json`). Every output that shows an interval
/// (tables, the gate, the Compare page, the HTML report) says it with these, so
/// they say the same. A comparison without those fields (older output, no
/// intervals) gets empty texts, never a guess. Each takes the typed comparison;
/// the overloads on JSON read it with comparedConfigFromJson() first, for the
/// readers not yet typed.

/// "within-run", "calibrated" or "rounds"; empty when the configuration names none of these.
QString intervalMethod(const nlohmann::json& config);
/// `run_to_run.measured`; nullopt when the comparison does not say.
std::optional<bool> runToRunMeasured(const nlohmann::json& config);
/// `run_to_run.confidence`, 0.95 when it gives none.
double intervalConfidence(const nlohmann::json& config);
/// "95 %", "99.4 %".
QString confidenceText(double confidence);
/// "95 % intervals across 3 paired rounds",
/// "95 % intervals within one run; run-to-run not measured: add repeats or calibrate",
/// "95 % intervals with A/A calibration: 6 runs of mns32, 2026-12-04 (cal.jsonl)",
/// "intervals across 5 paired rounds at 99.4 % per look, 9 looks (repeats until decided)".
QString intervalMethodText(const nlohmann::json& config);
/// What the gate says beside a decision whose run-to-run spread was not measured.
QString unmeasuredDecisionText();
/// `rounds_needed` for one statistic: the rounds, or nullopt (not undecided, or cannot say).
std::optional<int> roundsNeeded(const nlohmann::json& config, const char* key, const char* stat);
/// "about 9 paired rounds would resolve a 5 % difference in TTFT p99, 14 in ITL p50": the
/// table's undecided statistics that have a figure; those the rounds already run would
/// resolve are said to differ by less ("the 3 rounds run would already resolve ..."). Empty when none.
QString roundsNeededText(const nlohmann::json& config);
/// "about 9 paired rounds would resolve a 5 % difference" for one statistic; empty when it has none.
QString roundsNeededText(const nlohmann::json& config, const char* key, const char* stat);
/// "dropped 32 of 256 requests as warm-up (MSER-5)"; empty when nothing was dropped.
QString steadyText(const nlohmann::json& config);
/// The configuration's TTFT never settled (the arm's `unsettled`, or its `steady.settled` false).
bool isUnsettled(const nlohmann::json& arm, const nlohmann::json& config);
/// "TTFT still moving at the end of the run: not steady; its intervals say little".
QString unsettledText();
/// "[low-high] is the ratio's interval, made as each configuration's line says; * marks ...": what a
/// table's brackets and marks mean, for the legend under it.
QString intervalLegend(const nlohmann::json& arm);
/// One line per configuration with something to say: "mns16: <method>; <steady>; <rounds needed>",
/// and for one that never settled, its warning. The baseline's line has no method (its ratios are 1).
QStringList intervalLines(const nlohmann::json& arm);

// The typed comparison (compare/comparisontypes.h): the implementation of all of the above.
QString intervalMethod(const ComparedConfig& config);
std::optional<bool> runToRunMeasured(const ComparedConfig& config);
double intervalConfidence(const ComparedConfig& config);
QString intervalMethodText(const ComparedConfig& config);
std::optional<int> roundsNeeded(const ComparedConfig& config, LatencyMetric metric, LatencyStat stat);
QString roundsNeededText(const ComparedConfig& config);
QString roundsNeededText(const ComparedConfig& config, LatencyMetric metric, LatencyStat stat);
QString steadyText(const ComparedConfig& config);
bool isUnsettled(const ComparedArm& arm, const ComparedConfig& config);
QString intervalLegend(const ComparedArm& arm);
/// `baselineRows`: configurations also read as baselines (a sweep's steps table, one per step).
QStringList intervalLines(const ComparedArm& arm, const QStringList& baselineRows = {});

} // namespace ks
