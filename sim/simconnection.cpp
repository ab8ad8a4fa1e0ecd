#include "simconnection.h"

#include "arrivalwatch.h"
#include "openairequest.h"
#include "util/monotonicclock.h"

#include <QTcpSocket>

#include <algorithm>

namespace kssim {

namespace {
constexpr std::int64_t kSplitGapUs = 1000;
}

SimConnection::SimConnection(QTcpSocket* socket, HttpRequestParser::Limits limits, ArrivalWatch* watch, QObject* parent)
    : QObject(parent)
    , m_socket(socket)
    , m_watch(watch)
    , m_fd(socket->socketDescriptor())
    , m_parser(limits)
{
    m_socket->setParent(this);
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_pumpTimer.setSingleShot(true);
    m_pumpTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_pumpTimer, &QTimer::timeout, this, &SimConnection::pump);
    connect(m_socket, &QTcpSocket::readyRead, this, &SimConnection::onReadyRead);
    // Queued: a close can happen inside a write made on behalf of a session, and
    // listeners must not tear that session down underneath its own call.
    connect(m_socket, &QTcpSocket::disconnected, this, &SimConnection::reportClosed, Qt::QueuedConnection);
    if (m_watch)
        m_watch->add(this, m_fd);
}

SimConnection::~SimConnection()
{
    if (m_watch)
        m_watch->remove(this, m_fd);
}

bool SimConnection::isOpen() const
{
    return m_socket->state() == QAbstractSocket::ConnectedState;
}

void SimConnection::onReadyRead()
{
    // Others' bytes may have arrived while this loop pass was busy; stamp them
    // before handling this request delays them further.
    if (m_watch)
        m_watch->poll();
    if (m_firstByteUs < 0)
        m_firstByteUs = m_unreadSinceUs >= 0 ? m_unreadSinceUs : ks::monotonicUs();
    m_unreadSinceUs = -1;
    m_parser.feed(m_socket->readAll());
    processBuffered();
}

void SimConnection::processBuffered()
{
    if (m_busy || m_closeWhenFlushed)
        return;
    HttpRequest request;
    switch (m_parser.next(request)) {
    case HttpRequestParser::Result::NeedMore:
        return;
    case HttpRequestParser::Result::Error: {
        m_busy = true;
        m_keepAlive = false;
        const ApiError error { m_parser.errorStatus(), QString::fromUtf8(m_parser.errorMessage()),
            QStringLiteral("BadRequestError"), {} };
        sendResponse(error.status, "application/json", errorBody(error));
        return;
    }
    case HttpRequestParser::Result::Request:
        break;
    }
    m_busy = true;
    m_keepAlive = request.keepAlive;
    const std::int64_t arrival = m_firstByteUs;
    m_firstByteUs = m_parser.buffered() > 0 ? ks::monotonicUs() : -1;
    emit requestReceived(this, request, arrival);
}

QByteArray SimConnection::statusLine(int status)
{
    const char* reason = "OK";
    switch (status) {
    case 400:
        reason = "Bad Request";
        break;
    case 404:
        reason = "Not Found";
        break;
    case 405:
        reason = "Method Not Allowed";
        break;
    case 413:
        reason = "Payload Too Large";
        break;
    case 429:
        reason = "Too Many Requests";
        break;
    case 431:
        reason = "Request Header Fields Too Large";
        break;
    case 500:
        reason = "Internal Server Error";
        break;
    case 501:
        reason = "Not Implemented";
        break;
    case 503:
        reason = "Service Unavailable";
        break;
    default:
        break;
    }
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\n";
}

void SimConnection::sendResponse(int status, const QByteArray& contentType, const QByteArray& body,
    const QList<Header>& extra, WrittenCallback onWritten)
{
    QByteArray head = statusLine(status);
    head += "server: knobscope-sim\r\ncontent-type: " + contentType
        + "\r\ncontent-length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto& [name, value] : extra)
        head += name + ": " + value + "\r\n";
    head += m_keepAlive ? "connection: keep-alive\r\n\r\n" : "connection: close\r\n\r\n";
    enqueue(head + body, 0, std::move(onWritten));
    finishRequest();
}

void SimConnection::beginStream()
{
    QByteArray head = statusLine(200);
    head += "server: knobscope-sim\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\n"
            "transfer-encoding: chunked\r\n";
    head += m_keepAlive ? "connection: keep-alive\r\n\r\n" : "connection: close\r\n\r\n";
    enqueue(head);
}

void SimConnection::sendChunk(const QByteArray& payload, const std::vector<qsizetype>& cuts, WrittenCallback onWritten)
{
    std::int64_t notBefore = 0;
    qsizetype from = 0;
    std::vector<qsizetype> ends(cuts.begin(), cuts.end());
    ends.push_back(payload.size());
    for (std::size_t i = 0; i < ends.size(); ++i) {
        const qsizetype to = std::clamp(ends[i], from, payload.size());
        if (to == from && i + 1 < ends.size())
            continue;
        const QByteArray piece = payload.mid(from, to - from);
        const bool lastPiece = i + 1 == ends.size();
        enqueue(QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n", notBefore,
            lastPiece ? std::move(onWritten) : WrittenCallback {});
        notBefore = (notBefore ? notBefore : ks::monotonicUs()) + kSplitGapUs;
        from = to;
    }
}

void SimConnection::endStream(WrittenCallback onWritten)
{
    enqueue("0\r\n\r\n", 0, std::move(onWritten));
    finishRequest();
}

void SimConnection::finishRequest()
{
    m_busy = false;
    if (!m_keepAlive) {
        closeWhenFlushed();
        return;
    }
    // A pipelined request may already be buffered.
    QMetaObject::invokeMethod(this, &SimConnection::processBuffered, Qt::QueuedConnection);
}

void SimConnection::pauseUntil(std::int64_t untilUs)
{
    m_pausedUntilUs = std::max(m_pausedUntilUs, untilUs);
    pump();
}

void SimConnection::abortNow()
{
    m_queue.clear();
    m_pumpTimer.stop();
    m_busy = true;
    m_socket->abort();
    QMetaObject::invokeMethod(this, &SimConnection::reportClosed, Qt::QueuedConnection);
}

void SimConnection::reportClosed()
{
    if (m_closedReported)
        return;
    m_closedReported = true;
    emit closed(this);
}

void SimConnection::closeWhenFlushed()
{
    m_closeWhenFlushed = true;
    pump();
}

void SimConnection::enqueue(QByteArray bytes, std::int64_t notBeforeUs, WrittenCallback onWritten)
{
    m_queue.push_back({ std::move(bytes), notBeforeUs, std::move(onWritten) });
    if (m_queue.size() == 1)
        pump();
}

void SimConnection::pump()
{
    if (!isOpen()) {
        m_queue.clear();
        return;
    }
    const std::int64_t now = ks::monotonicUs();
    while (!m_queue.empty()) {
        const std::int64_t due = std::max(m_queue.front().notBeforeUs, m_pausedUntilUs);
        if (due > now) {
            m_pumpTimer.start(int((due - now + 999) / 1000));
            return;
        }
        Piece piece = std::move(m_queue.front());
        m_queue.pop_front();
        m_socket->write(piece.bytes);
        if (piece.onWritten)
            piece.onWritten(now);
        // A batch's write pass is thousands of these in a row.
        if (m_watch)
            m_watch->pollIfDue();
    }
    m_socket->flush();
    if (m_closeWhenFlushed)
        m_socket->disconnectFromHost();
}

} // namespace kssim
