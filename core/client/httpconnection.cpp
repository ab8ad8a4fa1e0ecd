#include "client/httpconnection.h"

#include <QSslSocket>
#include <QTcpSocket>

namespace ks {

HttpConnection::HttpConnection(const QUrl& origin, bool verifyTls, QObject* parent)
    : QObject(parent)
    , m_origin(origin)
    , m_verifyTls(verifyTls)
{
}

HttpConnection::~HttpConnection()
{
    closeSocket();
}

QByteArray HttpConnection::requestHead(
    const QByteArray& method, const QUrl& url, const QByteArray& headerLines, qsizetype contentLength)
{
    QByteArray target = url.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = "/";
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    QByteArray host = url.host(QUrl::FullyEncoded).toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']'; // an IPv6 literal
    const int defaultPort = url.scheme() == QLatin1String("https") ? 443 : 80;
    if (url.port(defaultPort) != defaultPort)
        host += ':' + QByteArray::number(url.port());
    QByteArray head;
    head.reserve(256 + headerLines.size());
    head += method + ' ' + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + headerLines;
    if (contentLength > 0 || method == "POST")
        head += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
    head += "\r\n";
    return head;
}

void HttpConnection::send(QByteArray request, bool headRequest)
{
    Q_ASSERT(!m_busy);
    m_busy = true;
    m_request = std::move(request);
    m_headRequest = headRequest;
    m_retried = false;
    m_writtenReported = false;
    m_receivedAny = false;
    m_parser = HttpResponseParser(headRequest);
    m_reused = m_socket && m_connected;
    if (m_reused)
        writeRequest();
    else
        connectSocket();
}

void HttpConnection::connectSocket()
{
    closeSocket();
    m_connected = false;
    const bool tls = m_origin.scheme() == QLatin1String("https");
    QTcpSocket* socket = tls ? new QSslSocket(this) : new QTcpSocket(this);
    m_socket = socket;
    connect(socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesWritten);
    connect(socket, &QTcpSocket::disconnected, this,
        [this] { onSocketGone(QStringLiteral("the server closed the connection")); });
    connect(socket, &QTcpSocket::errorOccurred, this, [this, socket](QAbstractSocket::SocketError) {
        if (socket == m_socket)
            onSocketGone(socket->errorString());
    });
    const quint16 port = quint16(m_origin.port(tls ? 443 : 80));
    if (tls) {
        auto* ssl = static_cast<QSslSocket*>(socket);
        if (!m_verifyTls)
            connect(ssl, &QSslSocket::sslErrors, ssl, [ssl](const QList<QSslError>&) { ssl->ignoreSslErrors(); });
        connect(ssl, &QSslSocket::encrypted, this, [this] {
            m_connected = true;
            writeRequest();
        });
        ssl->connectToHostEncrypted(m_origin.host(), port);
    } else {
        connect(socket, &QTcpSocket::connected, this, [this] {
            m_connected = true;
            writeRequest();
        });
        socket->connectToHost(m_origin.host(), port);
    }
    // Small writes (the request) go out at once rather than waiting for an ACK.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
}

void HttpConnection::writeRequest()
{
    if (!m_busy || !m_socket)
        return;
    m_socket->write(m_request);
    m_socket->flush(); // into the kernel now, not on the event loop's next pass
    onBytesWritten();
}

void HttpConnection::onBytesWritten()
{
    if (!m_busy || m_writtenReported || !m_socket || m_socket->bytesToWrite() > 0)
        return;
    m_writtenReported = true;
    if (m_callbacks.written)
        m_callbacks.written();
}

void HttpConnection::onReadyRead()
{
    if (!m_socket)
        return;
    const QByteArray bytes = m_socket->readAll();
    if (bytes.isEmpty())
        return;
    if (!m_busy) {
        // Bytes nobody asked for: the server is out of step with this connection.
        closeSocket();
        return;
    }
    m_receivedAny = true;
    const HttpResponseParser::Status status = m_parser.feed(
        bytes.constData(), bytes.size(),
        [this] {
            if (m_callbacks.head)
                m_callbacks.head(m_parser.statusCode());
        },
        [this](const char* data, qsizetype size) {
            if (m_callbacks.body && m_busy)
                m_callbacks.body(data, size);
        });
    if (!m_busy)
        return; // a callback aborted the exchange
    if (status == HttpResponseParser::Status::Done) {
        if (!m_parser.keepAlive())
            closeSocket();
        finishExchange({});
    } else if (status == HttpResponseParser::Status::Error) {
        closeSocket();
        finishExchange(QStringLiteral("malformed HTTP response: ") + m_parser.error());
    }
}

void HttpConnection::onSocketGone(const QString& why)
{
    if (!m_socket)
        return;
    if (m_socket->bytesAvailable() > 0)
        onReadyRead(); // what arrived before the close is part of the response
    if (!m_socket)
        return;
    closeSocket();
    if (!m_busy)
        return; // an idle keep-alive connection ended: the next request opens a new one
    // A reused connection that the server closed before answering (its keep-alive
    // ended as the request went out): send it once more on a new connection.
    if (m_reused && !m_receivedAny && !m_retried) {
        m_retried = true;
        m_reused = false;
        m_writtenReported = false;
        m_parser = HttpResponseParser(m_headRequest);
        connectSocket();
        return;
    }
    if (m_parser.closed() == HttpResponseParser::Status::Done) {
        finishExchange({});
        return;
    }
    finishExchange(m_receivedAny ? m_parser.error() : why);
}

void HttpConnection::finishExchange(const QString& error)
{
    m_busy = false;
    m_request.clear();
    if (m_callbacks.finished)
        m_callbacks.finished(error);
}

void HttpConnection::abort()
{
    if (!m_busy)
        return;
    m_busy = false;
    m_request.clear();
    closeSocket();
}

void HttpConnection::closeSocket()
{
    m_connected = false;
    if (!m_socket)
        return;
    QTcpSocket* socket = m_socket;
    m_socket = nullptr;
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
}

} // namespace ks
