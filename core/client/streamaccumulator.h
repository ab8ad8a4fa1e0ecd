#pragma once

#include "api/chunkdecoder.h"
#include "sse/sseparser.h"
#include "store/requestrecord.h"

#include <QCryptographicHash>

#include <set>
#include <string>

namespace ks {

/// Builds one RequestRecord from a response as it arrives: HTTP status, body
/// bytes with the time they were read, and how the transfer ended. Each event's
/// JSON is decoded exactly once. Independent of the network layer, so fixtures
/// and live streams go through the same code.
class StreamAccumulator {
public:
    StreamAccumulator(ApiKind api, RequestRecord record, qsizetype maxEventBytes = SseParser::kDefaultMaxEventBytes);

    void onStatus(int httpStatus);
    /// The response headers arrived at `nowUs` (run clock, like tSendUs): sets
    /// the status and t_headers_us. A server that holds its headers until a slot
    /// takes the request (llama.cpp) makes t_headers - t_send its queue wait.
    void onHeaders(int httpStatus, qint64 nowUs);
    void onRequestWritten(qint64 nowUs) { m_record.tWireUs = nowUs; }
    void onBytes(const char* data, qsizetype size, qint64 nowUs);
    void onBytes(const QByteArray& bytes, qint64 nowUs) { onBytes(bytes.constData(), bytes.size(), nowUs); }
    /// `transportError` is a reason code (ErrorReason) or empty for a clean end.
    RequestRecord finish(qint64 nowUs, const QString& transportError = {}, const QString& detail = {});

    bool sawDone() const { return m_done; }
    /// An event went over the size limit: the rest of the stream cannot be read,
    /// so the caller may end the exchange now rather than read it to its end.
    bool overLimit() const { return m_overLimit; }
    /// Keep the content and reasoning texts in the record (probes only: load
    /// requests keep hashes, never text).
    void keepText(bool keep) { m_keepText = keep; }

private:
    void onEvent(const SseParser::Event& event);
    void fail(const QString& reason, const QString& detail);

    ApiKind m_api;
    RequestRecord m_record;
    SseParser m_parser;
    QCryptographicHash m_hash { QCryptographicHash::Sha256 };
    QCryptographicHash m_reasoningHash { QCryptographicHash::Sha256 };
    bool m_sawReasoning = false;
    QByteArray m_errorBody;
    bool m_keepText = false;
    qint64 m_nowUs = 0;
    qint64 m_lastTokenUs = -1;
    int m_tokenEvents = 0;
    int m_usageTokens = -1;
    int m_usageReasoning = -1;
    int m_reasoningEvents = 0;
    int m_answerEvents = 0;
    std::set<int> m_toolIndices;
    std::set<std::string> m_toolIds; ///< of tool-call deltas without an index
    bool m_done = false;
    bool m_finishReason = false;
    bool m_overLimit = false;
};

} // namespace ks
