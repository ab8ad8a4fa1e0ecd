#include "store/recordjson.h"

namespace ks {

nlohmann::json toJson(const RequestRecord& r)
{
    auto optional = [](qint64 v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    auto text
        = [](const QString& s) { return s.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(s.toStdString()); };
    nlohmann::json j = {
        { "type", "request" },
        { "run", r.run.toStdString() },
        { "id", r.id },
        { "probe", text(r.probe) },
        { "warmup", r.warmup },
        { "t_sched_us", r.tSchedUs },
        { "t_send_us", r.tSendUs },
        { "t_wire_us", optional(r.tWireUs) },
        { "ttft_us", optional(r.ttftUs) },
        { "ttfc_us", optional(r.ttfcUs) },
        { "e2e_us", optional(r.e2eUs) },
        { "itl_us", r.itlUs },
        { "in_tokens", r.inTokens },
        { "out_tokens", r.outTokens },
        { "out_tokens_source", r.outTokensFromUsage ? "usage" : "events" },
        { "status", r.status },
        { "ok", r.ok },
        { "error", text(r.error) },
        { "error_detail", text(r.errorDetail) },
        { "output_sha256",
            r.outputSha256.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(r.outputSha256.toHex().toStdString()) },
    };
    if (!r.reasoningSha256.isEmpty())
        j["reasoning_sha256"] = r.reasoningSha256.toHex().toStdString();
    if (r.reasoningTokens >= 0) {
        j["reasoning_tokens"] = r.reasoningTokens;
        j["reasoning_tokens_source"] = r.reasoningTokensFromUsage ? "usage" : "events";
    }
    if (r.answerTokens >= 0)
        j["answer_tokens"] = r.answerTokens;
    if (r.toolCallEvents > 0) {
        j["tool_call_events"] = r.toolCallEvents;
        j["tool_calls"] = r.toolCalls;
    }
    if (r.images > 0) {
        j["images"] = r.images;
        j["image_bytes"] = r.imageBytes;
    }
    if (r.session >= 0) {
        j["session"] = r.session;
        j["turn"] = r.turn;
    }
    if (r.prefix >= 0)
        j["prefix"] = r.prefix;
    if (r.tHeadersUs >= 0)
        j["t_headers_us"] = r.tHeadersUs;
    if (r.server.any()) {
        const ServerTimings& t = r.server;
        auto ms = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
        auto count = [](int v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
        j["server"] = { { "prompt_ms", ms(t.promptMs) }, { "predicted_ms", ms(t.predictedMs) },
            { "prompt_n", count(t.promptN) }, { "predicted_n", count(t.predictedN) }, { "cache_n", count(t.cacheN) },
            { "source", "llamacpp-timings" } };
    }
    if (!r.probe.isEmpty()) {
        j["probe_repeat"] = r.probeRepeat;
        j["output_text"] = r.outputText.toStdString();
        j["reasoning_text"] = r.reasoningText.toStdString();
    }
    return j;
}

} // namespace ks
