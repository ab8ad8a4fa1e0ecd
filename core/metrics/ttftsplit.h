#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// Where TTFT goes, from the server's own figures (docs/metrics.md, "Where TTFT
/// goes"): the summary's `ttft_split_ms`, with `queue`, `prefill` and `rest`
/// and the `source` they came from. Never estimated: without a source there is
/// no split.
///
/// Per-request values of one run, collected by summarizeRun() from its ok,
/// non-warm-up requests that have a TTFT.
struct TtftSplitInput {
    /// llama.cpp (requests with t_headers_us and the stream's timings.prompt_ms):
    /// queue = t_headers - t_send, prefill = prompt_ms, rest = TTFT - both.
    /// llama.cpp holds its response headers until a slot takes the request
    /// (tests/realengine shows it); vLLM and knobscope-sim send them on arrival,
    /// so the time to headers alone is never read as a queue.
    std::vector<double> queueMs, prefillMs, restMs;
};

/// The `ttft_split_ms` object from per-request values, or null when no
/// source exists. Reorders the input's vectors.
nlohmann::json ttftSplitFromRequests(TtftSplitInput& input);

/// A cumulative Prometheus histogram, summed over label sets: bucket upper
/// bounds ascending (the last +Inf) with their cumulative counts.
struct PromHistogram {
    std::vector<double> upperBounds;
    std::vector<double> cumulative;
    double sum = 0;
    double count = 0;
    bool present() const { return !upperBounds.empty(); }
};

/// vLLM's per-request latency histograms, in seconds.
struct LatencyHistograms {
    PromHistogram queue; ///< vllm:request_queue_time_seconds
    PromHistogram prefill; ///< vllm:request_prefill_time_seconds
    PromHistogram decode; ///< vllm:request_decode_time_seconds
    bool any() const { return queue.present() || prefill.present() || decode.present(); }
};

/// The `ttft_split_ms` object of an arm from vLLM's histograms at its start
/// (`first`) and at its last scrape (`last`): bucket deltas, percentiles
/// interpolated within buckets as Prometheus' histogram_quantile() does, means
/// exact from _sum/_count deltas, `rest` as the mean TTFT (client side) minus
/// the mean queue and prefill only. Null when either histogram is missing, saw
/// no request in between, or went backwards (a server restart).
nlohmann::json ttftSplitFromHistograms(
    const LatencyHistograms& first, const LatencyHistograms& last, double meanTtftMs);

/// The quantile q (0..1) of a histogram's bucket counts (non-cumulative deltas
/// given cumulatively), linear within the bucket that holds the rank; 0 below
/// the first bound, the highest finite bound for the +Inf bucket.
double histogramQuantile(const std::vector<double>& upperBounds, const std::vector<double>& cumulative, double q);

/// Puts `candidate` into summary["ttft_split_ms"] when it comes from a better
/// source than what is there: llamacpp-timings (per request, the server's own
/// clock) over vllm-histograms (per arm). Any other source (an older file's
/// `headers`) is not taken.
void offerTtftSplit(nlohmann::json& summary, const nlohmann::json& candidate);

/// offerTtftSplit() of the histogram split between an arm's first and last
/// scrape, with the summary's own mean TTFT; nothing when either is missing.
void offerHistogramSplit(nlohmann::json& summary, const std::optional<LatencyHistograms>& first,
    const std::optional<LatencyHistograms>& last);

/// "queue p50 1.2, prefill p50 40.0, rest p50 6.0 ms (llamacpp-timings)": one
/// line for the dashboard. From vLLM's histograms the exact means ("queue mean
/// 6870 ms"), since a percentile is only known to its bucket. Empty without a split.
QString ttftSplitBrief(const nlohmann::json& summary);

/// "ttft split (llamacpp-timings, 240 requests): queue p50 1.2 ms, ..." lines
/// for the report table; empty when the summary has no split.
QString formatTtftSplit(const nlohmann::json& summary);

/// One part of a split as text, in ms: "p50 12.3" per request; from vLLM's
/// histograms the exact mean first, then the p50 with the bucket that holds it
/// ("mean 6870.2 (p50 7081, in the bucket 5000-10000)"); "n/a" when unknown.
QString ttftSplitPartText(const nlohmann::json& split, const char* part);

/// The split's `source` ("llamacpp-timings", "vllm-histograms"); empty when it names none.
QString ttftSplitSource(const nlohmann::json& split);
/// The requests it covers, as a whole number; "n/a" when it does not say.
QString ttftSplitRequestsText(const nlohmann::json& split);

/// Why there is no split, for the places that show one: "the server publishes
/// no queue timing (no llama.cpp timings, no vLLM latency histograms)".
QString noTtftSplitReason();

} // namespace ks
