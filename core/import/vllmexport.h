#pragma once

#include "store/runfile.h"

#include <nlohmann/json.hpp>

namespace ks {

/// One run as vLLM's `vllm bench serve --save-result --save-detailed` would
/// have written it (vllm/benchmarks/serve.py, main_async() and benchmark()):
/// the same keys and units (times in ms for aggregates, seconds per request),
/// percentiles for 50, 90, 95 and 99 (as with --metric-percentiles 50,90,95,99)
/// for ttft, tpot, itl and e2el, and the per-request arrays. `duration` is
/// knobscope's span (first send to last completion), so request_throughput is
/// knobscope's req/s. A summary-only run has no arrays and only the figures it
/// carries. Warm-up requests are left out, as vLLM leaves out its warm-ups.
nlohmann::json toVllmResult(const RunData& run, const nlohmann::json& experimentLine);

/// A file name for the run: its label with anything but [A-Za-z0-9._-] as '_', plus ".json".
QString vllmResultFileName(const RunData& run);

} // namespace ks
