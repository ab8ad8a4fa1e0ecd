// Long context through knobscope's own HTTP client: request bodies of several
// MB go out whole, SSE lines of 16 MB are read whole, and a line over the limit
// fails its own request only.
#include "../sim/simprocess.h"
#include "client/httpconnection.h"
#include "client/streamaccumulator.h"
#include "truthlog.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace ks;

namespace {

/// A one-shot HTTP server that reads a whole request (head and Content-Length
/// body), counts its body bytes, and answers with the SSE events it is given,
/// written in 1 MiB chunks of chunked encoding.
class SseServer : public QObject {
public:
    explicit SseServer(QList<QByteArray> events)
        : m_events(std::move(events))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = m_server.nextPendingConnection()) {
                auto buffer = std::make_shared<QByteArray>();
                connect(s, &QTcpSocket::readyRead, s, [this, s, buffer] { onRead(s, *buffer); });
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    qint64 bodyBytes() const { return m_bodyBytes; }

private:
    void onRead(QTcpSocket* s, QByteArray& buffer)
    {
        buffer += s->readAll();
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return;
        const QByteArray head = buffer.left(headEnd).toLower();
        const qsizetype at = head.indexOf("content-length:");
        const qint64 length = at < 0 ? 0 : head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).trimmed().toLongLong();
        if (buffer.size() - headEnd - 4 < length)
            return;
        m_bodyBytes = buffer.size() - headEnd - 4;
        buffer.clear();
        s->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        QByteArray stream;
        for (const QByteArray& e : m_events)
            stream += "data: " + e + "\n\n";
        constexpr qsizetype kChunk = 1 << 20;
        for (qsizetype i = 0; i < stream.size(); i += kChunk) {
            const QByteArray piece = stream.mid(i, kChunk);
            s->write(QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n");
        }
        s->write("0\r\n\r\n");
    }

    QTcpServer m_server;
    QList<QByteArray> m_events;
    qint64 m_bodyBytes = -1;
};

QByteArray contentEvent(const QByteArray& text, bool last = false)
{
    return "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
        + "\"},\"finish_reason\":" + (last ? QByteArray("\"stop\"") : QByteArray("null")) + "}]}";
}

/// One chat request through HttpConnection and StreamAccumulator, as the load
/// path drives them; returns the finished record.
RequestRecord exchange(quint16 port, const QByteArray& body)
{
    const QUrl url(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(port));
    HttpConnection connection(url, true);
    RequestRecord seed;
    seed.tSendUs = 0;
    StreamAccumulator acc(ApiKind::Chat, seed);
    QElapsedTimer clock;
    clock.start();
    bool done = false;
    QString transportError;
    connection.setCallbacks({
        .written = [&] { acc.onRequestWritten(clock.nsecsElapsed() / 1000); },
        .head = [&](int status) { acc.onHeaders(status, clock.nsecsElapsed() / 1000); },
        .body = [&](const char* data, qsizetype size) { acc.onBytes(data, size, clock.nsecsElapsed() / 1000); },
        .finished =
            [&](const QString& error) {
                transportError = error;
                done = true;
            },
    });
    connection.send(HttpConnection::requestHead("POST", url, "Content-Type: application/json\r\n", body.size()) + body);
    if (!QTest::qWaitFor([&] { return done; }, 60000))
        transportError = QStringLiteral("no answer within 60 s");
    return acc.finish(
        clock.nsecsElapsed() / 1000, transportError.isEmpty() ? QString() : ErrorReason::kTransport, transportError);
}

} // namespace

class TestLongContext : public QObject {
    Q_OBJECT
private slots:
    void sixteenMegabyteLineAndFourMegabyteBody()
    {
        const QByteArray text(16 << 20, 'x');
        SseServer server({ contentEvent(text), contentEvent("y", true), "[DONE]" });
        const QByteArray body = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\""
            + QByteArray(4 << 20, 'p') + "\"}]}";
        const RequestRecord r = exchange(server.port(), body);
        QVERIFY2(r.ok, qPrintable(r.error + QLatin1String(": ") + r.errorDetail));
        QCOMPARE(server.bodyBytes(), body.size());
        QCOMPARE(r.outTokens, 2);
        QCOMPARE(r.outputSha256, QCryptographicHash::hash(text + "y", QCryptographicHash::Sha256));
        QVERIFY(r.ttfcUs >= 0);
    }

    void lineOverTheLimitFailsThatRequest()
    {
        const QByteArray text(SseParser::kDefaultMaxEventBytes + 1024, 'x');
        SseServer big({ contentEvent(text), contentEvent("y", true), "[DONE]" });
        SseServer small({ contentEvent("a"), contentEvent("b", true), "[DONE]" });
        const RequestRecord failed = exchange(big.port(), "{\"model\":\"m\"}");
        QVERIFY(!failed.ok);
        QCOMPARE(failed.error, ErrorReason::kEventTooLarge);
        QVERIFY2(failed.errorDetail.contains(QLatin1String("32 MiB")), qPrintable(failed.errorDetail));
        const RequestRecord fine = exchange(small.port(), "{\"model\":\"m\"}");
        QVERIFY2(fine.ok, qPrintable(fine.error));
        QCOMPARE(fine.outTokens, 2);
    }

    // knobscope-sim reads a 4 MiB body whole by default: its truth log holds the
    // exact prompt, and the prompt's tokens are counted from all of it. ignore_eos
    // pins the answer at max_tokens: without it (temperature 1 by default) the sim
    // draws a length (mean 180, capped at 4), under 4 about once in 52 runs.
    void simReadsFourMegabyteBody()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b"), QStringLiteral("--truth-log"),
                               truthPath, QStringLiteral("--truth-log-prompts"), QStringLiteral("--max-model-len"),
                               QStringLiteral("8192") },
                     &error),
            qPrintable(error));
        // 1000 words, each followed by a run of spaces: 4 MiB of text, 1000 tokens.
        QByteArray prompt;
        for (int i = 0; i < 1000; ++i)
            prompt += "w" + QByteArray::number(i) + QByteArray(4200 - QByteArray::number(i).size(), ' ');
        const QByteArray messages = "[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]";
        const QByteArray body
            = "{\"model\":\"sim-1.8b\",\"stream\":true,\"max_tokens\":4,\"ignore_eos\":true,\"messages\":" + messages
            + "}";
        QVERIFY(body.size() > 4 << 20);
        const RequestRecord r = exchange(sim.port(), body);
        QVERIFY2(r.ok, qPrintable(r.error + QLatin1String(": ") + r.errorDetail));
        QCOMPARE(sim.terminate(), 0);
        const std::vector<kssim::TruthRecord> truth = kssim::readTruthLog(truthPath);
        QCOMPARE(truth.size(), std::size_t(1));
        QCOMPARE(truth[0].promptTokens, 1000 + 4); // the words, plus the chat template's tokens for one message
        QCOMPARE(truth[0].prompt.size(), messages.size());
        QCOMPARE(truth[0].outputTokens, 4);
        QCOMPARE(truth[0].tokensWritten, 4);
        QCOMPARE(r.outTokens, 4);
    }
};

QTEST_GUILESS_MAIN(TestLongContext)
#include "tst_longcontext.moc"
