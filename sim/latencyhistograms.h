#pragma once

#include <QByteArray>

#include <cstdint>
#include <vector>

namespace kssim {

/// vLLM V1's per-request latency histograms, with its names and bucket edges,
/// observed from the same instants the truth log records, so a client that
/// splits TTFT from them (queue, prefill) can be checked against the log.
///
/// As in vLLM: TTFT when the first token is emitted; queue (arrival to the
/// start of the step that admitted it), prefill (that step's start to the
/// first token), decode (first to last token), inference (admission to last
/// token) and end-to-end when a request finishes normally. Instants are the
/// engine's (a token is emitted at the end of its step), microseconds on the
/// truth log's clock. Requests that fail or are cancelled are not observed.
class LatencyHistograms {
public:
    LatencyHistograms();

    void observeFirstToken(std::int64_t arrivalUs, std::int64_t firstTokenUs);
    void observeFinished(
        std::int64_t arrivalUs, std::int64_t admittedUs, std::int64_t firstTokenUs, std::int64_t lastTokenUs);

    /// The Prometheus text of all six, each sample carrying `labels` ("{...}").
    QByteArray exposition(const QByteArray& labels) const;

private:
    struct Histogram {
        const char* name;
        const char* help;
        const std::vector<double>* bounds; ///< upper edges in seconds, ascending, +Inf implied
        std::vector<std::uint64_t> counts; ///< per bucket, not cumulative; the last is +Inf
        double sum = 0;
        std::uint64_t count = 0;
        void observe(double seconds);
    };

    Histogram m_ttft, m_e2e, m_queue, m_prefill, m_decode, m_inference;
};

} // namespace kssim
