// /metrics in the Prometheus text exposition format, with vLLM's metric names so
// scrapers written for vLLM read the simulator unchanged.
#include "simserver.h"

namespace kssim {

namespace {
void gauge(QByteArray& out, const char* name, const char* help, const QByteArray& labels, double value)
{
    out += QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + " gauge\n";
    out += QByteArray(name) + labels + ' ' + QByteArray::number(value, 'g', 10) + '\n';
}
void counter(QByteArray& out, const char* name, const char* help, const QByteArray& labels, quint64 value)
{
    out += QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + " counter\n";
    out += QByteArray(name) + "_total" + labels + ' ' + QByteArray::number(value) + '\n';
}

// vLLM V1's spec-decode counters, under its names (published only with --spec-tokens).
QByteArray specDecodeExposition(const BatchEngine::SpecCounters& c, const QByteArray& model)
{
    const QByteArray labels = '{' + model + '}';
    QByteArray out;
    counter(out, "vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", labels, c.drafts);
    counter(out, "vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", labels, c.draftTokens);
    counter(out, "vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", labels, c.acceptedTokens);
    out += "# HELP vllm:spec_decode_num_accepted_tokens_per_pos Accepted tokens per draft position.\n"
           "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter\n";
    for (std::size_t i = 0; i < c.acceptedPerPosition.size(); ++i)
        out += "vllm:spec_decode_num_accepted_tokens_per_pos_total{" + model + ",position=\""
            + QByteArray::number(qulonglong(i)) + "\"} " + QByteArray::number(c.acceptedPerPosition[i]) + '\n';
    return out;
}
} // namespace

QByteArray SimServer::metricsBody() const
{
    const QByteArray model = "model_name=\"" + m_options.servedModelName.toUtf8() + '"';
    const QByteArray labels = '{' + model + '}';
    const BatchEngine& engine = m_loop.engine();
    QByteArray out;
    gauge(out, "vllm:num_requests_running", "Number of requests in model execution batches.", labels,
        engine.runningCount());
    gauge(
        out, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", labels, engine.waitingCount());
    gauge(out, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", labels, engine.kvCacheUsage());

    out += "# HELP vllm:request_success_total Count of successfully processed requests.\n"
           "# TYPE vllm:request_success_total counter\n";
    for (const char* reason : { "length", "stop" }) {
        const auto it = m_successByReason.find(QByteArray(reason));
        const quint64 count = it == m_successByReason.end() ? 0 : it->second;
        out += "vllm:request_success_total{finished_reason=\"" + QByteArray(reason) + "\"," + model + "} "
            + QByteArray::number(count) + '\n';
    }
    out += "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n# TYPE vllm:prompt_tokens_total "
           "counter\n";
    out += "vllm:prompt_tokens_total" + labels + ' ' + QByteArray::number(m_promptTokensTotal) + '\n';
    out += "# HELP vllm:generation_tokens_total Number of generation tokens processed.\n"
           "# TYPE vllm:generation_tokens_total counter\n";
    out += "vllm:generation_tokens_total" + labels + ' ' + QByteArray::number(m_generationTokensTotal) + '\n';
    // vLLM V1's counters, in tokens: prompt tokens looked up in the prefix cache, and
    // those found there. prometheus_client names a counter's sample NAME_total.
    out += "# HELP vllm:prefix_cache_queries Prefix cache queries, in terms of number of queried tokens.\n"
           "# TYPE vllm:prefix_cache_queries counter\n";
    out += "vllm:prefix_cache_queries_total" + labels + ' ' + QByteArray::number(engine.prefixCacheQueries()) + '\n';
    out += "# HELP vllm:prefix_cache_hits Prefix cache hits, in terms of number of cached tokens.\n"
           "# TYPE vllm:prefix_cache_hits counter\n";
    out += "vllm:prefix_cache_hits_total" + labels + ' ' + QByteArray::number(engine.prefixCacheHits()) + '\n';
    out += m_latency.exposition(labels);
    if (m_options.engine.specTokens > 0)
        out += specDecodeExposition(engine.specCounters(), model);
    out += "# HELP knobscope_sim_requests_failed_total Requests answered with an error or an injected fault.\n"
           "# TYPE knobscope_sim_requests_failed_total counter\n";
    out += "knobscope_sim_requests_failed_total " + QByteArray::number(m_failedTotal) + '\n';
    gauge(out, "knobscope_sim_open_connections", "Client TCP connections open now.", {}, m_openConnections);
    gauge(out, "knobscope_sim_open_connections_peak", "Most client TCP connections open at once since start.", {},
        m_peakOpenConnections);
    return out;
}

} // namespace kssim
