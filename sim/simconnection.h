#pragma once

#include "httprequestparser.h"

#include <QObject>
#include <QTimer>

#include <cstdint>
#include <deque>
#include <functional>

class QTcpSocket;

namespace kssim {

class ArrivalWatch;

/// One client connection: parses requests (one at a time, keep-alive), and
/// writes responses through a small queue that can delay pieces, so faults such
/// as stalls and split writes happen on the wire rather than in the engine.
class SimConnection : public QObject {
    Q_OBJECT
public:
    using Header = QPair<QByteArray, QByteArray>;
    using WrittenCallback = std::function<void(std::int64_t writtenUs)>;

    /// With a `watch`, a request is stamped with the kernel's receive time of its
    /// first bytes; without one, when the event loop reads them.
    SimConnection(
        QTcpSocket* socket, HttpRequestParser::Limits limits, ArrivalWatch* watch = nullptr, QObject* parent = nullptr);
    ~SimConnection() override;

    /// A complete response with Content-Length; ends the current request.
    void sendResponse(int status, const QByteArray& contentType, const QByteArray& body,
        const QList<Header>& extra = {}, WrittenCallback onWritten = {});
    /// Status line and headers of a chunked text/event-stream response.
    void beginStream();
    /// One HTTP chunk; with `pieces` > 1 the payload is cut at the given offsets
    /// into several chunks written 1 ms apart (--split-writes).
    void sendChunk(const QByteArray& payload, const std::vector<qsizetype>& cuts = {}, WrittenCallback onWritten = {});
    /// Terminates the chunked body; ends the current request.
    void endStream(WrittenCallback onWritten = {});
    /// Holds every queued write until `untilUs` (a stalled stream).
    void pauseUntil(std::int64_t untilUs);
    /// Drops the connection at once, mid-response (a crashed server or proxy).
    void abortNow();
    /// Ends the current request and closes once everything queued is written.
    void closeWhenFlushed();

    bool isOpen() const;

    /// ArrivalWatch's side: bytes that Qt has not read yet arrived at `arrivalUs`.
    bool hasUnreadStamp() const { return m_unreadSinceUs >= 0; }
    void stampUnread(std::int64_t arrivalUs) { m_unreadSinceUs = arrivalUs; }

signals:
    void requestReceived(kssim::SimConnection* connection, const kssim::HttpRequest& request, qint64 arrivalUs);
    void closed(kssim::SimConnection* connection);

private:
    struct Piece {
        QByteArray bytes;
        std::int64_t notBeforeUs = 0;
        WrittenCallback onWritten;
    };

    void onReadyRead();
    void processBuffered();
    void finishRequest();
    void enqueue(QByteArray bytes, std::int64_t notBeforeUs = 0, WrittenCallback onWritten = {});
    void pump();
    void reportClosed();
    static QByteArray statusLine(int status);

    QTcpSocket* m_socket;
    ArrivalWatch* m_watch;
    qintptr m_fd;
    HttpRequestParser m_parser;
    bool m_busy = false;
    bool m_keepAlive = true;
    bool m_closeWhenFlushed = false;
    bool m_closedReported = false;
    std::int64_t m_firstByteUs = -1; ///< first byte of the request being parsed
    std::int64_t m_unreadSinceUs = -1; ///< arrival of bytes that Qt has not read yet
    std::int64_t m_pausedUntilUs = 0;
    std::deque<Piece> m_queue;
    QTimer m_pumpTimer;
};

} // namespace kssim
