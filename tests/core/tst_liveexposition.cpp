#include "metrics/liveexposition.h"

#include <QTest>

using namespace ks;

namespace {

RequestRecord okRecord(qint64 ttftUs, qint64 e2eUs, int outTokens)
{
    RequestRecord r;
    r.ok = true;
    r.status = 200;
    r.ttftUs = ttftUs;
    r.e2eUs = e2eUs;
    r.outTokens = outTokens;
    r.itlUs = { 20'000, 30'000 };
    return r;
}

RequestRecord failed(const QString& reason)
{
    RequestRecord r;
    r.error = reason;
    return r;
}

// The value of one sample line, or -1 when absent.
double valueOf(const QByteArray& text, const QByteArray& series)
{
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith(series + ' '))
            return line.mid(series.size() + 1).toDouble();
    }
    return -1;
}

} // namespace

class TestLiveExposition : public QObject {
    Q_OBJECT
private slots:
    void histogramsAreCumulativeWithVllmEdges()
    {
        LiveExposition e;
        RequestRecord warm = okRecord(1'000, 2'000, 2);
        warm.warmup = true; // excluded, as from every statistic
        // TTFT 3 ms, 100 ms (on an edge: le is inclusive), 2 s; TPOT of the first (E2E 43 ms, 3 tokens) is 20 ms.
        e.addRecords(QStringLiteral("a/stress"),
            { okRecord(3'000, 43'000, 3), okRecord(100'000, 400'000, 2), okRecord(2'000'000, 3'000'000, 1), warm,
                failed(QStringLiteral("http_500")), failed(QStringLiteral("http_500")),
                failed(QStringLiteral("stalled")) });
        e.setInFlight(QStringLiteral("a/stress"), 12);
        const QByteArray text = e.render();
        const QByteArray run = "run=\"a/stress\"";
        auto bucket = [&](const char* name, const char* le) {
            return valueOf(text, QByteArray(name) + "_bucket{" + run + ",le=\"" + le + "\"}");
        };
        QCOMPARE(bucket("knobscope_time_to_first_token_seconds", "0.001"), 0.0);
        QCOMPARE(bucket("knobscope_time_to_first_token_seconds", "0.005"), 1.0);
        QCOMPARE(bucket("knobscope_time_to_first_token_seconds", "0.1"), 2.0);
        QCOMPARE(bucket("knobscope_time_to_first_token_seconds", "1"), 2.0);
        QCOMPARE(bucket("knobscope_time_to_first_token_seconds", "2.5"), 3.0);
        QCOMPARE(bucket("knobscope_time_to_first_token_seconds", "+Inf"), 3.0);
        QCOMPARE(valueOf(text, "knobscope_time_to_first_token_seconds_count{" + run + "}"), 3.0);
        QCOMPARE(valueOf(text, "knobscope_time_to_first_token_seconds_sum{" + run + "}"), 2.103);
        // TPOT: (43 - 3) / 2 = 20 ms and (400 - 100) / 1 = 300 ms; one token has none.
        QCOMPARE(valueOf(text, "knobscope_time_per_output_token_seconds_count{" + run + "}"), 2.0);
        QCOMPARE(bucket("knobscope_time_per_output_token_seconds", "0.025"), 1.0);
        QCOMPARE(bucket("knobscope_time_per_output_token_seconds", "0.3"), 2.0);
        QCOMPARE(valueOf(text, "knobscope_inter_token_latency_seconds_count{" + run + "}"), 6.0);
        QCOMPARE(valueOf(text, "knobscope_e2e_request_latency_seconds_count{" + run + "}"), 3.0);
        QCOMPARE(valueOf(text, "knobscope_requests_total{" + run + ",outcome=\"ok\"}"), 3.0);
        QCOMPARE(valueOf(text, "knobscope_requests_total{" + run + ",outcome=\"error\"}"), 3.0);
        QCOMPARE(valueOf(text, "knobscope_request_errors_total{" + run + ",reason=\"http_500\"}"), 2.0);
        QCOMPARE(valueOf(text, "knobscope_request_errors_total{" + run + ",reason=\"stalled\"}"), 1.0);
        QCOMPARE(valueOf(text, "knobscope_requests_in_flight{" + run + "}"), 12.0);
        QVERIFY(text.contains("# TYPE knobscope_time_to_first_token_seconds histogram\n"));
        QVERIFY(!text.contains("knobscope_client_bound{")); // not known while the arm runs and no CPU sample
    }

    void clientBoundAndConstantLabels()
    {
        LiveExposition e;
        e.setConstantLabels({ { QStringLiteral("shard"), QStringLiteral("1") } });
        e.addRecords(QStringLiteral("x/\"odd\"\\name"), { okRecord(1'000, 2'000, 2) });
        e.setClientBound(QStringLiteral("x/\"odd\"\\name"), true);
        e.addRecords(QStringLiteral("x/next"), {});
        e.setClientCpu(0.95);
        const QByteArray text = e.render();
        QCOMPARE(valueOf(text, "knobscope_client_bound{run=\"x/\\\"odd\\\"\\\\name\",shard=\"1\"}"), 1.0);
        // The running run: CPU above the guard's threshold flags it at once.
        QCOMPARE(valueOf(text, "knobscope_client_bound{run=\"x/next\",shard=\"1\"}"), 1.0);
        QCOMPARE(valueOf(text, "knobscope_client_cpu_utilisation{shard=\"1\"}"), 0.95);
        e.setClientCpu(0.5);
        QCOMPARE(valueOf(e.render(), "knobscope_client_bound{run=\"x/next\",shard=\"1\"}"), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestLiveExposition)
#include "tst_liveexposition.moc"
