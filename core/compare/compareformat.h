#pragma once

#include "compare/comparisontypes.h"

#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// A column of the comparison table (`compare --format md`).
struct CompareColumn {
    const char* title;
    const char* key;
    const char* stat; ///< nullptr for scalar metrics
};
extern const CompareColumn kCompareColumns[8];

/// False when the configuration has no such figure (a summary-only import whose tool does not report it).
bool hasCompareValue(const nlohmann::json& config, const CompareColumn& column);
/// A configuration's value in a column (0 when it has none).
double compareValue(const nlohmann::json& config, const CompareColumn& column);
/// "6848.9 (16.38x [16.35-25.30]*)": the value, and for a non-baseline
/// configuration its ratio, interval and significance mark.
QString compareCell(const nlohmann::json& config, const CompareColumn& column, bool isBaseline);
/// The same three on the typed comparison.
bool hasCompareValue(const ComparedConfig& config, const CompareColumn& column);
double compareValue(const ComparedConfig& config, const CompareColumn& column);
QString compareCell(const ComparedConfig& config, const CompareColumn& column, bool isBaseline);
/// "Speculative decoding (the server's counters): B acceptance 60.3 %, mean accepted length 3.41; A none":
/// an arm's spec_acceptance and spec_mean_accepted; empty when no configuration has them.
QString specDecodeLine(const nlohmann::json& arm);
QString specDecodeLine(const ComparedArm& arm);
/// "TTFT p50 mean 812.3 ms, CV 4.1 %, t-interval [790.2, 834.4]; TPOT p50 ...": the spread of a
/// configuration's repeats, as `compare --format md` and the HTML report give it.
QString repeatsSpreadText(const RepeatFigures& repeats);
/// The output of `compare --format md` and `--format csv`.
QString compareMarkdown(const Comparison& comparison);
QString compareCsv(const Comparison& comparison);
/// The same for JSON in compare's format (hand-made, or read from a file), read into the types first.
QString compareMarkdown(const nlohmann::json& arms);
QString compareCsv(const nlohmann::json& arms);

} // namespace ks
