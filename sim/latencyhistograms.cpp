#include "latencyhistograms.h"

#include <algorithm>

namespace kssim {

namespace {

// vLLM V1's edges (vllm/v1/metrics): TTFT in fine steps from 1 ms; every
// per-request phase on one coarse scale from 0.3 s. Coarse is the point: a
// queue of 2 ms and one of 250 ms fall in the same bucket, which is why a
// split read from these histograms keeps each percentile's bucket beside it.
const std::vector<double> kTtftBounds { 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
    7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0 };
const std::vector<double> kRequestBounds { 0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
    60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0 };

// As prometheus_client writes an edge (Python's repr): 1.0, 0.3, 2560.0.
QByteArray edgeText(double edge)
{
    const QByteArray text = QByteArray::number(edge, 'g', 10);
    return text.contains('.') || text.contains('e') ? text : text + ".0";
}

double seconds(std::int64_t us)
{
    return double(std::max<std::int64_t>(0, us)) / 1e6;
}

} // namespace

LatencyHistograms::LatencyHistograms()
    : m_ttft { "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", &kTtftBounds, {} }
    , m_e2e { "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", &kRequestBounds, {} }
    , m_queue { "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
        &kRequestBounds, {} }
    , m_prefill { "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
        &kRequestBounds, {} }
    , m_decode { "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
        &kRequestBounds, {} }
    , m_inference { "vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.",
        &kRequestBounds, {} }
{
    for (Histogram* h : { &m_ttft, &m_e2e, &m_queue, &m_prefill, &m_decode, &m_inference })
        h->counts.assign(h->bounds->size() + 1, 0);
}

void LatencyHistograms::Histogram::observe(double value)
{
    // Prometheus buckets are "less than or equal": a value on an edge belongs to that edge's bucket.
    const auto it = std::lower_bound(bounds->begin(), bounds->end(), value);
    ++counts[std::size_t(it - bounds->begin())];
    sum += value;
    ++count;
}

void LatencyHistograms::observeFirstToken(std::int64_t arrivalUs, std::int64_t firstTokenUs)
{
    m_ttft.observe(seconds(firstTokenUs - arrivalUs));
}

void LatencyHistograms::observeFinished(
    std::int64_t arrivalUs, std::int64_t admittedUs, std::int64_t firstTokenUs, std::int64_t lastTokenUs)
{
    m_e2e.observe(seconds(lastTokenUs - arrivalUs));
    m_queue.observe(seconds(admittedUs - arrivalUs));
    m_prefill.observe(seconds(firstTokenUs - admittedUs));
    m_decode.observe(seconds(lastTokenUs - firstTokenUs));
    m_inference.observe(seconds(lastTokenUs - admittedUs));
}

QByteArray LatencyHistograms::exposition(const QByteArray& labels) const
{
    // "{model_name=...}" -> the label pairs, to join with le="...".
    const QByteArray inner = labels.size() > 2 ? labels.mid(1, labels.size() - 2) + ',' : QByteArray();
    QByteArray out;
    for (const Histogram* h : { &m_ttft, &m_e2e, &m_queue, &m_prefill, &m_decode, &m_inference }) {
        const QByteArray name(h->name);
        out += "# HELP " + name + ' ' + h->help + "\n# TYPE " + name + " histogram\n";
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i <= h->bounds->size(); ++i) {
            cumulative += h->counts[i];
            const QByteArray le = i < h->bounds->size() ? edgeText((*h->bounds)[i]) : "+Inf";
            out += name + "_bucket{" + inner + "le=\"" + le + "\"} " + QByteArray::number(cumulative) + '\n';
        }
        out += name + "_sum" + labels + ' ' + QByteArray::number(h->sum, 'g', 17) + '\n';
        out += name + "_count" + labels + ' ' + QByteArray::number(h->count) + '\n';
    }
    return out;
}

} // namespace kssim
