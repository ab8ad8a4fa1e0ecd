#pragma once

#include "compare/comparisontypes.h"

#include <QString>

#include <nlohmann/json.hpp>

namespace ks {

/// A configuration's reasoning and tool-call figures, per ok request, from its
/// summary's totals (docs/metrics.md): `reasoning_tokens_per_request`,
/// `answer_tokens_per_request`, `reasoning_share` (reasoning over reasoning, answer and tool-call
/// tokens), `tool_call_events_per_request`, `tool_calls_per_request` and
/// `itl_ms_no_tools`, each only where the summary has it. Null when it has none
/// of them (a run without reasoning or tool calls, an older file).
nlohmann::json reasoningFigures(const nlohmann::json& summary);

/// `figures` with `ratio`: each figure over the baseline's, where both have it
/// and the baseline's is above 0 (ITL without tool deltas at p50 and p99).
/// These ratios have no interval.
void addReasoningRatios(nlohmann::json& figures, const nlohmann::json& baseFigures);

/// A column of the reasoning and tool-call table (`compare --format md` and `--format csv`, the HTML report).
struct ReasoningColumn {
    const char* title;
    const char* key; ///< in a compare entry's `reasoning_tools` (the CSV's metric), or `itl_ms` (the entry's own)
    const char* stat; ///< nullptr for per-request figures
    int decimals;
    std::optional<double> (*value)(const ComparedConfig& config);
    /// Its ratio to the baseline's; nullptr where it has none (the entry's own ITL).
    std::optional<double> (*ratio)(const ReasoningFigures::Ratios& ratios);
};
extern const ReasoningColumn kReasoningColumns[9];

/// True when some configuration of the arm has reasoning or tool-call figures.
bool armHasReasoning(const ComparedArm& arm);
/// "51.2 (1.60x)": the figure and, off the baseline, its ratio; "n/a" when the configuration has none.
QString reasoningCell(const ComparedConfig& config, const ReasoningColumn& column, bool isBaseline);
/// The arm's reasoning and tool-call table in Markdown with its explanation; empty when it has none.
QString reasoningMarkdown(const ComparedArm& arm);
/// A configuration's CSV rows for `compare --format csv` after `prefix` ("arm,config,"); empty when it has none.
QString reasoningCsv(const ComparedConfig& config, const std::string& prefix);

} // namespace ks
