#pragma once

#include <QFile>
#include <QObject>
#include <QTimer>

#include <cstdint>
#include <vector>

namespace kssim {

/// What the server itself saw of one request; one JSONL line per request.
struct TruthRecord {
    QByteArray id; ///< the response id (cmpl-N / chatcmpl-N)
    QByteArray clientRequestId; ///< the X-Request-Id header, when the client sent one
    QByteArray endpoint;
    bool stream = false;
    int promptTokens = 0; ///< text and image tokens
    int images = 0; ///< image_url content parts
    int imageTokens = 0; ///< their tokens, part of promptTokens
    qint64 imageBytes = 0; ///< their files' bytes, decoded from base64
    int maxTokens = 0;
    int outputTokens = 0; ///< tokens the engine planned for this request
    int tokensWritten = 0;
    int reasoningTokens = 0; ///< token events written as reasoning_content
    int answerTokens = 0; ///< token events written as content (or completions text)
    int toolCallEvents = 0; ///< token events written as delta.tool_calls
    int toolCalls = 0; ///< distinct tool calls among them
    int specDrafts = 0; ///< speculative decoding: decode steps that drafted for this request
    int specDraftTokens = 0; ///< tokens drafted for it
    int specAcceptedTokens = 0; ///< of those, accepted
    bool prefixCacheHit = false;
    int cachedTokens = 0; ///< prompt tokens served from the prefix cache
    QByteArray prompt; ///< the exact prompt (or messages as JSON), with --truth-log-prompts only
    QString fault = QStringLiteral("none");
    int status = 200;
    QByteArray finishReason;
    std::int64_t arrivalUs = 0; ///< first byte of the request read
    std::int64_t admittedUs = -1; ///< engine step that admitted it began
    std::vector<std::int64_t> tokenUs; ///< each token-carrying event handed to the socket
    std::int64_t endUs = -1;
    bool logged = false;
};

/// Reads a truth log back, in file order: the one reader for tools (knobscope
/// calibrate) and tests. Lines that are not a JSON object are skipped; a field
/// that is missing or of the wrong type keeps TruthRecord's default. An
/// unreadable file gives no records and its error in `error`, when given.
std::vector<TruthRecord> readTruthLog(const QString& path, QString* error = nullptr);

/// The request index in a client request id of the form LABEL/INDEX (how
/// knobscope names its requests in X-Request-Id); -1 when it has no such index.
qint64 requestIndexOf(const TruthRecord& record);

/// Appends TruthRecords to a file, flushed every 100 ms and on close.
class TruthLog : public QObject {
    Q_OBJECT
public:
    explicit TruthLog(QObject* parent = nullptr);
    bool open(const QString& path, QString* error);
    bool isOpen() const { return m_file.isOpen(); }
    void append(const TruthRecord& record);
    void close();

private:
    QFile m_file;
    QTimer m_flushTimer;
};

} // namespace kssim
