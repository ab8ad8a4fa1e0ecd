// The simulator's arrival stamp: bytes that reach a connection while the single
// thread is busy writing (an engine step's write pass) are stamped when the pass
// first sees them, not when the event loop later reads them.
#include "arrivalwatch.h"
#include "monotonicclock.h"
#include "simconnection.h"

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
    while (monotonicNowUs() <= us) { }
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

private slots:
    void initTestCase() { QVERIFY(m_server.listen(QHostAddress::LocalHost, 0)); }

    // The hook a write pass runs between writes: the request is stamped inside
    // the pass, before the loop reads it. Stamped at read, as before, it would
    // be later than the pass's end.
    void stampsARequestThatArrivesDuringAWritePass()
    {
        ArrivalWatch watch;
        Accepted requester = accept(&watch);
        Accepted streamed = accept(&watch);
        QVERIFY(requester.connection && streamed.connection);
        QSignalSpy received(requester.connection.get(), &SimConnection::requestReceived);

        // The pass begins; meanwhile the request lands in the kernel.
        const std::int64_t sendStart = monotonicNowUs();
        QVERIFY(requester.client->send(kRequest));
        QVERIFY(waitUnread(requester.connection->findChild<QTcpSocket*>()->socketDescriptor()));
        passClockBeyond(sendStart + ArrivalWatch::kPollIntervalUs); // the next write is due a poll
        streamed.connection->beginStream(); // one write of the pass
        const std::int64_t passEnd = monotonicNowUs();
        passClockBeyond(passEnd);

        QVERIFY(received.wait(10000));
        const qint64 arrival = received.first().at(2).toLongLong();
        QVERIFY2(arrival <= passEnd, qPrintable(QStringLiteral("%1 > %2").arg(arrival).arg(passEnd)));
        QVERIFY2(arrival >= sendStart, qPrintable(QStringLiteral("%1 < %2").arg(arrival).arg(sendStart)));
        QCOMPARE(watch.stampsGiven(), quint64(1));
    }

    // Bytes the loop has already read leave an edge behind in the watch; it
    // must not stamp the next request before that request was sent.
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

        const std::int64_t secondSent = monotonicNowUs();
        QVERIFY(a.client->send(kRequest));
        QVERIFY(received.wait(10000));
        QVERIFY(received.at(1).at(2).toLongLong() >= secondSent);
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
        const std::int64_t busyEnd = monotonicNowUs();
        passClockBeyond(busyEnd);
        QVERIFY(received.wait(10000));
        QVERIFY(received.first().at(2).toLongLong() > busyEnd);
    }
};

QTEST_GUILESS_MAIN(TestArrivalWatch)
#include "tst_arrivalwatch.moc"
