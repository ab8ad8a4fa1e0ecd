#pragma once

#include "import/importedrun.h"

namespace ks {

/// GuideLLM's benchmarks report (`benchmarks.json`: GenerativeBenchmarksReport,
/// src/guidellm/benchmark/schemas/generative/report.py): `benchmarks`, each with
/// `metrics` (GenerativeMetrics, .../schemas/generative/metrics.py) whose
/// distributions are StatusDistributionSummary objects (src/guidellm/schemas/
/// statistics.py): `successful`, `errored`, `incomplete`, `total`, each with
/// mean, median, max, count and `percentiles` (p001 ... p999). Every benchmark
/// is one summary-only run: its `requests` lists are samples
/// (accumulator.get_sampled()), not every request, so they cannot stand in for
/// the distributions.
bool looksLikeGuideLlmReport(const nlohmann::json& object);
void importGuideLlmReport(const nlohmann::json& report, const ImportSource& source, RunFile* out);

} // namespace ks
