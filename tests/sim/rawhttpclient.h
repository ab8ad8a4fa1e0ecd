#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPair>
#include <QTcpSocket>

/// A deliberately independent HTTP/1.1 client for checking the simulator: raw
/// bytes over QTcpSocket, its own chunked decoding and SSE splitting, so a bug
/// in the server cannot be hidden by the same bug in a shared parser.
struct RawResponse {
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body; ///< de-chunked
    QList<QByteArray> chunks; ///< HTTP chunk payloads, in order
    bool complete = false; ///< terminating chunk or full Content-Length seen
    QByteArray header(const QByteArray& lowerName) const;
};

/// Splits every complete response in `bytes` (several for keep-alive).
QList<RawResponse> parseResponses(const QByteArray& bytes);

struct SseStream {
    QList<QByteArray> data; ///< payloads of data: lines, one per event
    int comments = 0;
    bool crlf = false;
    QByteArray trailing; ///< bytes after the last blank line (an unfinished event)
};
SseStream splitSse(const QByteArray& body);

QByteArray postRequest(
    const QByteArray& path, const QByteArray& json, bool keepAlive = false, const QByteArray& extraHeaders = {});
QByteArray getRequest(const QByteArray& path, bool keepAlive = false);

/// Sends raw bytes on one connection and collects everything until the server
/// closes it (tests send Connection: close on the last request).
class RawHttpClient : public QObject {
    Q_OBJECT
public:
    void start(quint16 port, const QByteArray& request);
    bool isDone() const { return m_done; }
    const QByteArray& received() const { return m_received; }
    QList<RawResponse> responses() const { return parseResponses(m_received); }

signals:
    void done();

private:
    QTcpSocket m_socket;
    QByteArray m_request;
    QByteArray m_received;
    bool m_done = false;
};

/// Blocking helper: one exchange, waits up to `timeoutMs` for the server to close.
QList<RawResponse> exchange(quint16 port, const QByteArray& request, int timeoutMs = 30000);
