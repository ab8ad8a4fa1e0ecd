#pragma once

#include "import/importedrun.h"

namespace ks {

/// vLLM `vllm bench serve --save-result` JSON (vllm/benchmarks/serve.py,
/// main_async() and benchmark(): the `result_json` dict). One object per run;
/// `--append-result` writes one per line. Per-request arrays (`ttfts`, `itls`,
/// `output_lens`, `input_lens`, `errors`, and in newer versions `start_times`,
/// `latencies`) come with `--save-detailed` and become full request records.
bool looksLikeVllmResult(const nlohmann::json& object);

/// Adds the run of one result object to `out`; problems become issues on `line`.
void importVllmResult(const nlohmann::json& object, qint64 line, const ImportSource& source, RunFile* out);

} // namespace ks
