#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>

namespace kssim {

struct HttpRequest {
    QByteArray method;
    QByteArray target;
    QByteArray version; ///< "HTTP/1.1" or "HTTP/1.0"
    QList<QPair<QByteArray, QByteArray>> headers; ///< names lower-cased
    QByteArray body;
    bool keepAlive = true;

    QByteArray header(const QByteArray& lowerCaseName) const;
    QByteArray path() const; ///< target without the query string
};

/// Incremental HTTP/1.1 request parser: bytes in (any split), requests out.
/// Handles keep-alive and pipelined requests on one connection; enforces limits
/// on header and body size. Written by hand because Qt 6.4 has no server-side
/// HTTP parser that can stream responses (docs/simulator.md).
class HttpRequestParser {
public:
    struct Limits {
        int maxHeaderBytes = 16 * 1024;
        qint64 maxBodyBytes = 32 * 1024 * 1024; ///< a 128K-token prompt is under 1 MiB; several-MB bodies fit
    };
    enum class Result { NeedMore, Request, Error };

    HttpRequestParser();
    explicit HttpRequestParser(Limits limits);

    void feed(const QByteArray& bytes) { m_buffer += bytes; }
    /// Tries to complete the next request from what was fed. After Error the
    /// connection's framing is lost: answer errorStatus() and close.
    Result next(HttpRequest& out);

    int errorStatus() const { return m_errorStatus; }
    const QByteArray& errorMessage() const { return m_errorMessage; }
    qsizetype buffered() const { return m_buffer.size(); }

private:
    Result fail(int status, const char* message);
    Result parseHead(qsizetype headEnd, qsizetype separatorLength);

    Limits m_limits;
    QByteArray m_buffer;
    bool m_inBody = false;
    qint64 m_bodyLength = 0;
    HttpRequest m_current;
    int m_errorStatus = 0;
    QByteArray m_errorMessage;
};

} // namespace kssim
