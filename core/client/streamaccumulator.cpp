#include "client/streamaccumulator.h"

namespace ks {

namespace {
constexpr qsizetype kErrorBodyKeep = 512;
}

StreamAccumulator::StreamAccumulator(ApiKind api, RequestRecord record, qsizetype maxEventBytes)
    : m_api(api)
    , m_record(std::move(record))
    , m_parser(maxEventBytes)
{
}

void StreamAccumulator::onStatus(int httpStatus)
{
    m_record.status = httpStatus;
}

void StreamAccumulator::onHeaders(int httpStatus, qint64 nowUs)
{
    m_record.status = httpStatus;
    m_record.tHeadersUs = nowUs; // status and time from the same (final) header block
}

void StreamAccumulator::fail(const QString& reason, const QString& detail)
{
    if (!m_record.error.isEmpty())
        return; // the first failure is the cause
    m_record.error = reason;
    m_record.errorDetail = detail;
}

void StreamAccumulator::onBytes(const char* data, qsizetype size, qint64 nowUs)
{
    m_nowUs = nowUs;
    if (m_record.status != 0 && (m_record.status < 200 || m_record.status >= 300)) {
        if (m_errorBody.size() < kErrorBodyKeep)
            m_errorBody.append(data, std::min(size, kErrorBodyKeep - m_errorBody.size()));
        return;
    }
    const auto status = m_parser.feed(data, size, [this](const SseParser::Event& e) { onEvent(e); });
    if (status == SseParser::Status::EventTooLarge && !m_overLimit) {
        m_overLimit = true;
        fail(ErrorReason::kEventTooLarge,
            QStringLiteral("an SSE event is larger than the %1 MiB limit").arg(m_parser.maxEventBytes() >> 20));
    }
}

void StreamAccumulator::onEvent(const SseParser::Event& event)
{
    const ChunkInfo chunk = decodeChunk(event.data, m_api);
    switch (chunk.kind) {
    case ChunkInfo::Kind::Done:
        m_done = true;
        return;
    case ChunkInfo::Kind::Error:
        fail(ErrorReason::kErrorEvent, chunk.errorMessage);
        return;
    case ChunkInfo::Kind::Undecodable:
        fail(ErrorReason::kUndecodable, chunk.errorMessage);
        return;
    case ChunkInfo::Kind::Chunk:
        break;
    }
    if (chunk.completionTokens >= 0)
        m_usageTokens = chunk.completionTokens; // servers differ in where usage goes: keep the last
    // The server's own count wins over the length asked for: a real tokenizer
    // makes about 130 tokens of 128 synthetic words (llama.cpp), and only the
    // server knows a probe's length.
    if (chunk.promptTokens >= 0)
        m_record.inTokens = chunk.promptTokens;
    if (chunk.reasoningTokens >= 0)
        m_usageReasoning = chunk.reasoningTokens;
    m_finishReason = m_finishReason || chunk.finished;
    if (chunk.timings.any()) { // llama.cpp sends them in the final chunk; keep the last seen
        const ChunkInfo::Timings& t = chunk.timings;
        m_record.server = { t.promptMs, t.predictedMs, t.promptN, t.predictedN, t.cacheN };
    }
    if (!chunk.hasToken)
        return;
    const qint64 sinceSend = m_nowUs - m_record.tSendUs;
    if (m_record.ttftUs < 0)
        m_record.ttftUs = sinceSend;
    if (chunk.hasContent) {
        ++m_answerEvents;
        if (m_record.ttfcUs < 0)
            m_record.ttfcUs = sinceSend;
        m_hash.addData(chunk.content);
        if (m_keepText)
            m_record.outputText += chunk.content;
    }
    if (!chunk.toolCalls.empty()) {
        ++m_record.toolCallEvents;
        for (const ChunkInfo::ToolCallDelta& call : chunk.toolCalls) {
            if (call.index >= 0)
                m_toolIndices.insert(call.index);
            else if (!call.id.empty())
                m_toolIds.insert(call.id);
        }
    }
    if (!chunk.reasoning.isEmpty()) {
        ++m_reasoningEvents;
        m_sawReasoning = true;
        m_reasoningHash.addData(chunk.reasoning);
        if (m_keepText)
            m_record.reasoningText += chunk.reasoning;
    }
    if (m_lastTokenUs >= 0)
        m_record.itlUs.push_back(std::int32_t(m_nowUs - m_lastTokenUs));
    m_lastTokenUs = m_nowUs;
    ++m_tokenEvents;
}

RequestRecord StreamAccumulator::finish(qint64 nowUs, const QString& transportError, const QString& detail)
{
    m_record.e2eUs = nowUs - m_record.tSendUs;
    if (m_record.status != 0 && (m_record.status < 200 || m_record.status >= 300))
        fail(ErrorReason::kHttpPrefix + QString::number(m_record.status), QString::fromUtf8(m_errorBody).simplified());
    if (!transportError.isEmpty())
        fail(transportError, detail);
    if (!m_done && !m_finishReason)
        fail(ErrorReason::kIncomplete, QStringLiteral("the stream ended without [DONE] or a finish_reason"));
    if (m_tokenEvents == 0)
        fail(ErrorReason::kNoTokens, QStringLiteral("the stream carried no token on any channel"));
    m_record.outTokensFromUsage = m_usageTokens >= 0;
    m_record.outTokens = m_usageTokens >= 0 ? m_usageTokens : m_tokenEvents;
    m_record.toolCalls = int(m_toolIndices.size() + m_toolIds.size());
    if (m_sawReasoning || m_usageReasoning >= 0 || m_record.toolCallEvents > 0) {
        m_record.reasoningTokensFromUsage = m_usageReasoning >= 0;
        m_record.reasoningTokens = m_usageReasoning >= 0 ? m_usageReasoning : m_reasoningEvents;
        m_record.answerTokens = m_answerEvents;
    }
    m_record.outputSha256 = m_hash.result();
    if (m_sawReasoning)
        m_record.reasoningSha256 = m_reasoningHash.result();
    m_record.ok = m_record.error.isEmpty();
    return std::move(m_record);
}

} // namespace ks
