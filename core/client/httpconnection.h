#pragma once

#include "client/httpresponseparser.h"

#include <QObject>
#include <QPointer>
#include <QUrl>

#include <functional>

class QTcpSocket;

namespace ks {

/// One keep-alive HTTP/1.1 connection that carries one request at a time and
/// hands the response on as its bytes are read, all on the owner's thread.
///
/// Why not QNetworkAccessManager (docs/troubleshooting.md, docs/PERFORMANCE.md): on
/// Qt 6.4 every QNAM runs its own HTTP thread with at most 6 connections, and a
/// POST body reaches the wire only after two queued hops between that thread and
/// the posting one (wantData, haveUploadData). Under a burst of 256 posts those
/// hops queue behind each other and behind the streams' reads, which put 12-18 ms
/// (p50) between post() and the server, and 43 extra threads on two cores. Here
/// the request is one write() from the thread that reads its stream.
class HttpConnection : public QObject {
    Q_OBJECT
public:
    /// Called on the owner's thread; a callback may call send() or abort() on
    /// this connection (`finished` is the last call of an exchange).
    struct Callbacks {
        std::function<void()> written; ///< the whole request is in the kernel's send buffer
        std::function<void(int status)> head; ///< the response head arrived
        std::function<void(const char* data, qsizetype size)> body; ///< decoded body bytes
        std::function<void(const QString& error)> finished; ///< empty on a complete response
    };

    /// `origin`: scheme (http or https), host and port; `verifyTls` false ignores certificate errors.
    HttpConnection(const QUrl& origin, bool verifyTls, QObject* parent = nullptr);
    ~HttpConnection() override;

    void setCallbacks(Callbacks callbacks) { m_callbacks = std::move(callbacks); }

    bool busy() const { return m_busy; }
    /// Sends a whole request (head and body): written at once on an open
    /// connection, or as soon as a new one is open. Only when not busy().
    void send(QByteArray request, bool headRequest = false);
    /// Ends the current exchange without a callback; the socket is closed,
    /// since a response read halfway cannot be followed by another.
    void abort();
    /// The HTTP request head for `method` and `target` on this origin, with the
    /// given extra header lines ("Name: value\r\n" each) and Content-Length.
    static QByteArray requestHead(
        const QByteArray& method, const QUrl& url, const QByteArray& headerLines, qsizetype contentLength);

private:
    void connectSocket();
    void writeRequest();
    void onReadyRead();
    void onBytesWritten();
    /// The socket closed or failed; `why` says how.
    void onSocketGone(const QString& why);
    void finishExchange(const QString& error);
    void closeSocket();

    QUrl m_origin;
    bool m_verifyTls;
    Callbacks m_callbacks;
    QPointer<QTcpSocket> m_socket;
    bool m_connected = false;
    bool m_busy = false;
    bool m_reused = false; ///< the exchange runs on a connection that carried one before
    bool m_retried = false;
    bool m_writtenReported = false;
    bool m_receivedAny = false;
    bool m_headRequest = false;
    QByteArray m_request;
    HttpResponseParser m_parser;
};

} // namespace ks
