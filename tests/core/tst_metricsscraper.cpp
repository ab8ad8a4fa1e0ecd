// The metrics scraper against a scripted HTTP server: a failed scrape is
// retried with back-off (the gap is recorded), a server without metrics is
// given up on once.
#include "telemetry/metricsscraper.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>

using namespace ks;

namespace {

// Answers each GET with what `reply(n)` returns for the n-th request (from 1);
// an empty answer leaves the request hanging.
class ScriptedServer : public QObject {
public:
    explicit ScriptedServer(std::function<QByteArray(int)> reply)
        : m_reply(std::move(reply))
    {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                    m_buffers[socket] += socket->readAll();
                    QByteArray& buffer = m_buffers[socket];
                    for (qsizetype end; (end = buffer.indexOf("\r\n\r\n")) >= 0;) {
                        buffer.remove(0, end + 4);
                        const QByteArray answer = m_reply(++requests);
                        if (!answer.isEmpty())
                            socket->write(answer);
                    }
                });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort())); }
    int requests = 0;

private:
    QTcpServer m_server;
    std::function<QByteArray(int)> m_reply;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

QByteArray http(int status, const QByteArray& body)
{
    return "HTTP/1.1 " + QByteArray::number(status)
        + " X\r\nContent-Type: text/plain\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

const QByteArray kGauges = "vllm:num_requests_running 3\nvllm:num_requests_waiting 1\n";

} // namespace

class TestMetricsScraper : public QObject {
    Q_OBJECT
private slots:
    // One scrape that times out under load must not end scraping for the arm.
    void aTimedOutScrapeIsRetried()
    {
        ScriptedServer server([](int n) { return n == 1 ? QByteArray() : http(200, kGauges); });
        MetricsScraper scraper(server.url(), 0, 50);
        scraper.setTimeoutMs(200);
        QSignalSpy sampled(&scraper, &MetricsScraper::sampled);
        QSignalSpy failed(&scraper, &MetricsScraper::failed);
        QSignalSpy resumed(&scraper, &MetricsScraper::resumed);
        QSignalSpy unavailable(&scraper, &MetricsScraper::unavailable);
        scraper.start();
        QVERIFY(sampled.wait(10000));
        QCOMPARE(unavailable.count(), 0);
        QCOMPARE(failed.count(), 1);
        QCOMPARE(resumed.count(), 1);
        QCOMPARE(scraper.failures(), 1);
        QVERIFY(scraper.longestGapMs() > 0); // the gap is recorded
        QCOMPARE(sampled.first().first().value<ServerSample>().running, std::optional<double>(3));
        QVERIFY(scraper.isActive());
        scraper.stop();
    }

    void serverErrorsAreRetriedWithBackOff()
    {
        ScriptedServer server([](int n) { return n <= 3 ? http(503, "busy") : http(200, kGauges); });
        MetricsScraper scraper(server.url(), 0, 20);
        QSignalSpy sampled(&scraper, &MetricsScraper::sampled);
        QSignalSpy failed(&scraper, &MetricsScraper::failed);
        std::vector<int> intervals;
        connect(&scraper, &MetricsScraper::failed, this, [&] { intervals.push_back(scraper.currentIntervalMs()); });
        scraper.start();
        QVERIFY(sampled.wait(10000));
        QCOMPARE(scraper.failures(), 3);
        QCOMPARE(failed.count(), 3);
        // Back-off doubles from the interval after each failure, and resets on success.
        QCOMPARE(intervals, (std::vector<int> { 40, 80, 160 }));
        QCOMPARE(scraper.currentIntervalMs(), 20);
        QVERIFY(scraper.longestGapMs() > 0);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("503")));
    }

    // The arm's scraper keeps vLLM's phase histograms from its first scrape and
    // its latest one: the arm's split is their difference.
    void keepsTheFirstAndLatestHistograms()
    {
        auto metrics = [](int n) {
            const QByteArray count = QByteArray::number(10 * n); // 10, 20, 30, ... requests queued so far
            return kGauges + "vllm:request_queue_time_seconds_bucket{le=\"0.3\",model_name=\"m\"} " + count
                + "\nvllm:request_queue_time_seconds_bucket{le=\"+Inf\",model_name=\"m\"} " + count
                + "\nvllm:request_queue_time_seconds_sum{model_name=\"m\"} 1.5\n"
                  "vllm:request_queue_time_seconds_count{model_name=\"m\"} "
                + count + "\n";
        };
        ScriptedServer server([&](int n) { return n == 2 ? QByteArray() : http(200, metrics(n)); });
        MetricsScraper scraper(server.url(), 0, 20);
        scraper.setTimeoutMs(200);
        QSignalSpy sampled(&scraper, &MetricsScraper::sampled);
        QVERIFY(!scraper.firstHistograms());
        scraper.start();
        QTRY_VERIFY_WITH_TIMEOUT(sampled.count() >= 3, 10000);
        scraper.stop();
        // Request 2 got no answer: the n-th sample (n >= 2) is the answer to request n + 1.
        const double lastAnswered = double(sampled.count() + 1);
        QVERIFY(scraper.firstHistograms() && scraper.lastHistograms());
        QCOMPARE(scraper.firstHistograms()->queue.count, 10.0);
        QCOMPARE(scraper.lastHistograms()->queue.count, 10.0 * lastAnswered);
        QCOMPARE(scraper.lastHistograms()->queue.cumulative.front(), 10.0 * lastAnswered);
        QVERIFY(!scraper.lastHistograms()->prefill.present());
    }

    // No /metrics, or no gauges knobscope knows: given up once, not asked again.
    void aServerWithoutMetricsIsGivenUpOnce_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::newRow("404") << http(404, "not found");
        QTest::newRow("no known gauges") << http(200, "process_cpu_seconds_total 1\n");
    }
    void aServerWithoutMetricsIsGivenUpOnce()
    {
        QFETCH(QByteArray, answer);
        ScriptedServer server([answer](int) { return answer; });
        MetricsScraper scraper(server.url(), 0, 20);
        QSignalSpy unavailable(&scraper, &MetricsScraper::unavailable);
        QSignalSpy failed(&scraper, &MetricsScraper::failed);
        scraper.start();
        QVERIFY(unavailable.wait(10000));
        QCOMPARE(failed.count(), 0);
        QVERIFY(!scraper.isActive());
        QCOMPARE(server.requests, 1);
    }
};

QTEST_GUILESS_MAIN(TestMetricsScraper)
#include "tst_metricsscraper.moc"
