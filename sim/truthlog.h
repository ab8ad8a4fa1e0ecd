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
    int promptTokens = 0;
    int maxTokens = 0;
    int outputTokens = 0; ///< tokens the engine planned for this request
    int tokensWritten = 0;
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
