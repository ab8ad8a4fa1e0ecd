#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ks {

/// The server's own account of one request, when its stream carries one
/// (llama.cpp's `timings` object in the final chunk). -1: absent.
struct ServerTimings {
    double promptMs = -1; ///< prompt processing (prefill), including the first token
    double predictedMs = -1; ///< generation after the first token
    int promptN = -1; ///< prompt tokens processed (not counting those from the cache)
    int predictedN = -1;
    int cacheN = -1; ///< prompt tokens reused from the cache
    bool any() const { return promptMs >= 0 || predictedMs >= 0 || promptN >= 0 || predictedN >= 0 || cacheN >= 0; }
    bool operator==(const ServerTimings&) const = default;
};

/// One request as the client measured it (docs/formats.md, "Run files"). Times are
/// microseconds since the run's start on the client's monotonic clock.
struct RequestRecord {
    QString run;
    qint64 id = 0;
    QString probe; ///< empty for load requests
    int probeRepeat = -1; ///< which pass over the probe set, for probes
    qint64 session = -1; ///< multi-turn: the session this request is a turn of; -1 otherwise
    int turn = -1; ///< multi-turn: the turn within the session, from 0
    int prefix = -1; ///< shared-prefix prompts: which prefix it starts with; -1 otherwise
    qint64 tSchedUs = 0; ///< intended send time (rate mode), else the send time
    qint64 tSendUs = 0;
    qint64 tWireUs = -1; ///< when the HTTP stack reported the request written (diagnostic)
    qint64 tHeadersUs = -1; ///< when the response headers arrived (same clock as tSendUs)
    qint64 ttftUs = -1; ///< first token on any channel
    qint64 ttfcUs = -1; ///< first content token
    qint64 e2eUs = -1;
    std::vector<std::int32_t> itlUs; ///< gaps between token-carrying events
    int inTokens = 0;
    int outTokens = 0;
    bool outTokensFromUsage = false;
    /// Reasoning and answer tokens: set (>= 0) when the stream carried reasoning or
    /// tool calls, or the usage gave completion_tokens_details.reasoning_tokens.
    /// The usage's reasoning count wins over the stream's events (the source says which);
    /// answer tokens are the content events.
    int reasoningTokens = -1;
    bool reasoningTokensFromUsage = false;
    int answerTokens = -1;
    int toolCallEvents = 0; ///< token events that carried delta.tool_calls
    int toolCalls = 0; ///< distinct tool calls among them (by index, else by id)
    int images = 0; ///< images sent in the request's messages
    qint64 imageBytes = 0; ///< their image files' bytes (base64 on the wire is 4/3 of it)
    int status = 0;
    bool ok = false;
    bool warmup = false; ///< excluded from statistics
    QString error; ///< reason code, empty when ok
    QString errorDetail;
    /// SHA-256 of the exact content text: 32 raw bytes (written to files as 64 hex digits).
    QByteArray outputSha256;
    QByteArray reasoningSha256; ///< of the reasoning text, 32 raw bytes; empty when there was none
    QByteArray outputText; ///< the content text: kept for probes only
    QByteArray reasoningText; ///< the reasoning text: kept for probes only
    ServerTimings server; ///< the server's timings for this request, when its stream gave them

    /// The inter-token gaps before the first tool-call delta: tool-call deltas
    /// end a stream (vLLM, SGLang and OpenAI send them after any reasoning and content).
    qsizetype itlGapsBeforeTools() const { return itlGapsBeforeTools(qsizetype(itlUs.size()), toolCallEvents); }
    static qsizetype itlGapsBeforeTools(qsizetype gaps, int toolCallEvents)
    {
        return toolCallEvents > 0 ? std::max<qsizetype>(0, gaps - toolCallEvents) : gaps;
    }

    qint64 scheduleLagUs() const { return tSendUs - tSchedUs; }
    /// (E2E - TTFT) / (out - 1) in microseconds, or -1 when undefined.
    double tpotUs() const
    {
        return ok && outTokens > 1 && ttftUs >= 0 ? double(e2eUs - ttftUs) / double(outTokens - 1) : -1.0;
    }
};

/// Error reason codes (the `error` field).
namespace ErrorReason {
inline const QString kHttpPrefix = QStringLiteral("http_"); // http_500, http_429, ...
inline const QString kTransport = QStringLiteral("transport");
inline const QString kTimeout = QStringLiteral("timeout");
inline const QString kStalled = QStringLiteral("stalled");
inline const QString kCancelled = QStringLiteral("cancelled");
inline const QString kErrorEvent = QStringLiteral("error_event");
inline const QString kUndecodable = QStringLiteral("undecodable_event");
inline const QString kEventTooLarge = QStringLiteral("event_too_large");
inline const QString kIncomplete = QStringLiteral("incomplete_stream");
inline const QString kNoTokens = QStringLiteral("no_tokens"); // a 2xx stream that carried no token at all
} // namespace ErrorReason

} // namespace ks

Q_DECLARE_METATYPE(ks::RequestRecord)
