#pragma once

#include "metrics/specdecode.h"
#include "metrics/ttftsplit.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>
#include <vector>

namespace ks {

/// One sample line of the Prometheus text exposition format.
struct PromSample {
    QString name;
    QList<QPair<QString, QString>> labels;
    double value = 0; ///< NaN and ±Inf are kept as such
};

/// Parses the Prometheus text format (version 0.0.4): comments and HELP/TYPE
/// lines are skipped, label values are unescaped (\\, \", \n), NaN/+Inf/-Inf are
/// understood, an optional timestamp is ignored. Malformed lines are counted
/// and skipped, never fatal. Written by hand: no Prometheus client library is
/// packaged for Debian 12's C++, and the format is a line grammar.
struct PromParseResult {
    std::vector<PromSample> samples;
    int malformedLines = 0;
};
PromParseResult parsePrometheusText(const QByteArray& text);

/// The server gauges knobscope records, from whichever engine exposes them.
struct ServerGauges {
    std::optional<double> running;
    std::optional<double> waiting;
    std::optional<double> kvCacheUsage; ///< 0..1
    QString engine; ///< "vllm", "sglang", "llamacpp" or empty
    bool any() const { return running || waiting || kvCacheUsage; }
};
/// Sums a gauge over label sets (several models or ranks) per engine's names:
/// vLLM (num_requests_running/waiting, kv_cache_usage_perc or the older
/// gpu_cache_usage_perc), SGLang (num_running_reqs, num_queue_reqs, token_usage),
/// llama.cpp (requests_processing, requests_deferred).
ServerGauges extractServerGauges(const std::vector<PromSample>& samples);

/// Speculative decoding: vLLM's spec_decode_num_{drafts,draft_tokens,accepted_tokens}
/// counters (all three, summed over label sets) and SGLang's spec_accept_length
/// gauge (the highest over label sets). Nothing when neither is published.
std::optional<SpecDecodeCounters> extractSpecDecode(const std::vector<PromSample>& samples);

/// vLLM's request_{queue,prefill,decode}_time_seconds histograms: each
/// bucket's cumulative count (by its `le`), _sum and _count, summed over label
/// sets (models, engines). A metric without _bucket lines stays absent.
LatencyHistograms extractLatencyHistograms(const std::vector<PromSample>& samples);

} // namespace ks
