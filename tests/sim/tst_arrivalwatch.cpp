// The simulator's arrival stamp: the kernel's receive time of a request's bytes,
// taken before Qt reads them, so neither a busy thread (an engine step's write
// pass) nor a late wake-up makes the truth log's arrival_us late.
#include "arrivalwatch.h"
#include "simconnection.h"
#include "util/monotonicclock.h"

#include <QAbstractEventDispatcher>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <memory>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace kssim;

namespace {

const QByteArray kRequest = "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            "Content-Length: 2\r\n\r\n{}";

/// A plain blocking client socket: sending from it does not go through the
/// event loop, so bytes can land while the loop is held up, as they do mid-pass.
class BlockingClient {
public:
    explicit BlockingClient(quint16 port)
        : m_fd(::socket(AF_INET, SOCK_STREAM, 0))
    {
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        m_connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    }
    ~BlockingClient() { ::close(m_fd); }
    bool connected() const { return m_connected; }
    bool send(const QByteArray& bytes)
    {
        return ::send(m_fd, bytes.constData(), size_t(bytes.size()), 0) == bytes.size();
    }

private:
    int m_fd;
    bool m_connected = false;
};

/// Blocks until the kernel holds unread bytes for `fd`, without reading them.
bool waitUnread(qintptr fd)
{
    pollfd p { int(fd), POLLIN, 0 };
    return ::poll(&p, 1, 10000) == 1 && (p.revents & POLLIN);
}

/// Returns once the microsecond clock has moved past `us`, so anything stamped
/// later is strictly greater.
void passClockBeyond(std::int64_t us)
{
    while (ks::monotonicUs() <= us) { }
}

struct Accepted {
    std::unique_ptr<BlockingClient> client;
    std::unique_ptr<SimConnection> connection;
};

} // namespace

class TestArrivalWatch : public QObject {
    Q_OBJECT
private:
    QTcpServer m_server;

    Accepted accept(ArrivalWatch* watch)
    {
        Accepted a;
        a.client = std::make_unique<BlockingClient>(m_server.serverPort());
        if (!a.client->connected() || !m_server.waitForNewConnection(10000))
            return a;
        a.connection
            = std::make_unique<SimConnection>(m_server.nextPendingConnection(), HttpRequestParser::Limits {}, watch);
        return a;
    }

    bool kernelStampsFlow()
    {
        ArrivalWatch watch;
        Accepted a = accept(&watch);
        if (!a.connection || !a.client->send(kRequest)
            || !waitUnread(a.connection->findChild<QTcpSocket*>()->socketDescriptor()))
            return false;
        watch.poll();
        return watch.kernelStampsGiven() == 1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_server.listen(QHostAddress::LocalHost, 0));
        // As the simulator does: timestamping stays on while the listener lives.
        // The kernel turns it on from a work queue, so wait until a segment
        // actually carries a stamp before the tests rely on one.
        QVERIFY(ArrivalWatch::enableReceiveTimestamps(m_server.socketDescriptor()));
        QTRY_VERIFY_WITH_TIMEOUT(kernelStampsFlow(), 10000);
    }

    // A write pass peeks between its writes, so a request that lands mid-pass
    // is stamped within the pass (its first segment's time even if more of it
    // arrives before the pass ends). Stamped at read, as before, it would be
    // later than the pass's end.
    void stampsARequestThatArrivesDuringAWritePass()
    {
        ArrivalWatch watch;
        Accepted requester = accept(&watch);
        Accepted streamed = accept(&watch);
        QVERIFY(requester.connection && streamed.connection);
        QSignalSpy received(requester.connection.get(), &SimConnection::requestReceived);

        // The pass begins; meanwhile the request lands in the kernel.
        const std::int64_t sendStart = ks::monotonicUs();
        QVERIFY(requester.client->send(kRequest));
        QVERIFY(waitUnread(requester.connection->findChild<QTcpSocket*>()->socketDescriptor()));
        passClockBeyond(sendStart + ArrivalWatch::kPollIntervalUs); // the next write is due a poll
        streamed.connection->beginStream(); // one write of the pass
        QCOMPARE(watch.stampsGiven(), quint64(1));
        const std::int64_t passEnd = ks::monotonicUs();
        passClockBeyond(passEnd);

        QVERIFY(received.wait(10000));
        const qint64 arrival = received.first().at(2).toLongLong();
        QVERIFY2(arrival <= passEnd, qPrintable(QStringLiteral("%1 > %2").arg(arrival).arg(passEnd)));
        QVERIFY2(arrival >= sendStart - 1, qPrintable(QStringLiteral("%1 < %2").arg(arrival).arg(sendStart)));
    }

    // The stamp is the kernel's: earlier than the moment the watch looked.
    // (Converting CLOCK_REALTIME to CLOCK_MONOTONIC and truncating to
    // microseconds can put it up to 1 us before the send began.)
    void stampsTheKernelsReceiveTime()
    {
        ArrivalWatch watch;
        Accepted a = accept(&watch);
        QVERIFY(a.connection);
        QSignalSpy received(a.connection.get(), &SimConnection::requestReceived);
        const std::int64_t sendStart = ks::monotonicUs();
        QVERIFY(a.client->send(kRequest));
        QVERIFY(waitUnread(a.connection->findChild<QTcpSocket*>()->socketDescriptor()));
        const std::int64_t seen = ks::monotonicUs();
        passClockBeyond(seen);
        watch.poll();
        QCOMPARE(watch.kernelStampsGiven(), quint64(1));
        QVERIFY(received.wait(10000));
        const qint64 arrival = received.first().at(2).toLongLong();
        QVERIFY2(arrival <= seen, qPrintable(QStringLiteral("%1 > %2").arg(arrival).arg(seen)));
        QVERIFY2(arrival >= sendStart - 1, qPrintable(QStringLiteral("%1 < %2").arg(arrival).arg(sendStart)));
    }

    // With the loop idle, the watch's notifier (registered before the socket's)
    // runs first in the pass that sees the bytes, so it peeks before Qt reads.
    void peeksBeforeTheLoopReads()
    {
        const QByteArray dispatcher = QAbstractEventDispatcher::instance()->metaObject()->className();
        if (!dispatcher.contains("Glib"))
            QSKIP("notifier order is only fixed by registration in the glib dispatcher");
        ArrivalWatch watch;
        Accepted a = accept(&watch);
        QVERIFY(a.connection);
        QSignalSpy received(a.connection.get(), &SimConnection::requestReceived);
        QVERIFY(a.client->send(kRequest));
        QVERIFY(waitUnread(a.connection->findChild<QTcpSocket*>()->socketDescriptor()));
        const std::int64_t beforeLoop = ks::monotonicUs();
        passClockBeyond(beforeLoop);
        QVERIFY(received.wait(10000));
        QCOMPARE(watch.kernelStampsGiven(), quint64(1));
        QVERIFY(received.first().at(2).toLongLong() <= beforeLoop);
    }

    // Bytes the loop has already read must not give the next request a stamp
    // from before it was sent.
    void doesNotStampFromBytesAlreadyRead()
    {
        ArrivalWatch watch;
        Accepted a = accept(&watch);
        QVERIFY(a.connection);
        QSignalSpy received(a.connection.get(), &SimConnection::requestReceived);
        QVERIFY(a.client->send(kRequest));
        QVERIFY(received.wait(10000));
        a.connection->sendResponse(200, "application/json", "{}");
        const quint64 stampsBefore = watch.stampsGiven();
        watch.poll();
        QCOMPARE(watch.stampsGiven(), stampsBefore);

        const std::int64_t secondSent = ks::monotonicUs();
        QVERIFY(a.client->send(kRequest));
        QVERIFY(received.wait(10000));
        QVERIFY(received.at(1).at(2).toLongLong() >= secondSent - 1);
    }

    // Without a watch (--arrival-stamp read) the stamp is taken when the loop
    // reads the bytes, after any work that held the loop up.
    void withoutAWatchStampsOnRead()
    {
        Accepted a = accept(nullptr);
        QVERIFY(a.connection);
        QSignalSpy received(a.connection.get(), &SimConnection::requestReceived);
        QVERIFY(a.client->send(kRequest));
        QVERIFY(waitUnread(a.connection->findChild<QTcpSocket*>()->socketDescriptor()));
        const std::int64_t busyEnd = ks::monotonicUs();
        passClockBeyond(busyEnd);
        QVERIFY(received.wait(10000));
        QVERIFY(received.first().at(2).toLongLong() > busyEnd);
    }
};

QTEST_GUILESS_MAIN(TestArrivalWatch)
#include "tst_arrivalwatch.moc"
