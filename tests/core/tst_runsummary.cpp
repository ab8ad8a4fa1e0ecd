#include "client/streamaccumulator.h"
#include "metrics/runsummary.h"

#include <QTest>

using namespace ks;

namespace {

RequestRecord okRecord(qint64 id, qint64 send, qint64 ttft, qint64 e2e, int out)
{
    RequestRecord r;
    r.id = id;
    r.tSchedUs = send;
    r.tSendUs = send;
    r.ttftUs = ttft;
    r.ttfcUs = ttft;
    r.e2eUs = e2e;
    r.outTokens = out;
    r.status = 200;
    r.ok = true;
    for (int i = 1; i < out; ++i)
        r.itlUs.push_back(std::int32_t((e2e - ttft) / (out - 1)));
    return r;
}

ClientLoad clientLoad(double lagP99Ms, double cpu)
{
    ClientLoad load;
    load.loopLagP99Ms = lagP99Ms;
    load.cpuUtilisation = cpu;
    load.cores = 2;
    return load;
}

RequestRecord failed(qint64 id, const QString& reason)
{
    RequestRecord r;
    r.id = id;
    r.tSendUs = 0;
    r.e2eUs = 5;
    r.error = reason;
    return r;
}

} // namespace

class TestRunSummary : public QObject {
    Q_OBJECT
private slots:
    void computesLatencyThroughputAndErrors()
    {
        // Three successes: TTFT 100/200/300 ms, 11 tokens, e2e = TTFT + 10 * 20 ms.
        std::vector<RequestRecord> records = {
            okRecord(0, 0, 100'000, 300'000, 11),
            okRecord(1, 0, 200'000, 400'000, 11),
            okRecord(2, 1'000'000, 300'000, 500'000, 11),
            failed(3, QStringLiteral("http_500")),
            failed(4, QStringLiteral("http_500")),
            failed(5, QStringLiteral("stalled")),
        };
        RequestRecord warm = okRecord(6, 0, 9'000'000, 9'500'000, 11);
        warm.warmup = true;
        records.push_back(warm);

        const auto s = summarizeRun(QStringLiteral("r"), QStringLiteral("c"), QStringLiteral("a"), records, {});
        QCOMPARE(s["requests"].get<int>(), 6);
        QCOMPARE(s["ok"].get<int>(), 3);
        QCOMPARE(s["errors"].get<int>(), 3);
        QCOMPARE(s["errors_by_reason"]["http_500"].get<int>(), 2);
        QCOMPARE(s["errors_by_reason"]["stalled"].get<int>(), 1);
        QCOMPARE(s["ttft_ms"]["p50"].get<double>(), 200.0);
        QCOMPARE(s["ttft_ms"]["max"].get<double>(), 300.0);
        QCOMPARE(s["ttft_ms"]["count"].get<int>(), 3); // errors and warm-up excluded
        QCOMPARE(s["tpot_ms"]["p50"].get<double>(), 20.0);
        QCOMPARE(s["itl_ms"]["count"].get<int>(), 30);
        // 3 completions between the first send (0) and the last end (1.5 s).
        QVERIFY(std::abs(s["req_per_s"].get<double>() - 2.0) < 1e-9);
        QVERIFY(std::abs(s["out_tok_per_s"].get<double>() - 22.0) < 1e-9);
    }

    void goodputCountsOnlyRequestsMeetingEverySlo()
    {
        const std::vector<RequestRecord> records = {
            okRecord(0, 0, 100'000, 300'000, 11), // TPOT 20 ms
            okRecord(1, 0, 600'000, 800'000, 11), // TTFT too slow
            okRecord(2, 0, 100'000, 900'000, 11), // TPOT 80 ms too slow
        };
        const auto s = summarizeRun({}, {}, {}, records, Slo { 500, 50 });
        QVERIFY(std::abs(s["goodput_req_per_s"].get<double>() - 1.0 / 0.9) < 1e-9);
        QVERIFY(std::abs(s["req_per_s"].get<double>() - 3.0 / 0.9) < 1e-9);
    }

    void scheduleLagIsReported()
    {
        RequestRecord r = okRecord(0, 2'000, 100, 200, 2);
        r.tSchedUs = 1'000;
        const auto s = summarizeRun({}, {}, {}, { r }, {});
        QCOMPARE(s["schedule_lag_ms"]["p50"].get<double>(), 1.0);
    }

    void clientBoundGuardFires()
    {
        const std::vector<RequestRecord> records = { okRecord(0, 0, 100, 200, 2) };
        const auto calm = summarizeRun({}, {}, {}, records, {}, clientLoad(0.4, 0.3));
        QCOMPARE(calm["client"]["client_bound"].get<bool>(), false);
        QVERIFY(calm["warnings"].empty());
        const auto busy = summarizeRun({}, {}, {}, records, {}, clientLoad(25.0, 0.97));
        QCOMPARE(busy["client"]["client_bound"].get<bool>(), true);
        QVERIFY(
            QString::fromStdString(busy["warnings"][0].get<std::string>()).startsWith(QStringLiteral("client-bound")));
    }

    void clientSendQueueingIsShownAndWarnedAbout()
    {
        RequestRecord quick = okRecord(0, 0, 100, 200, 2);
        quick.tWireUs = 500; // 0.5 ms inside the client
        RequestRecord slow = okRecord(1, 0, 100, 200, 2);
        slow.tWireUs = 9'000;
        const auto calm = summarizeRun({}, {}, {}, { quick, quick }, {});
        QCOMPARE(calm["send_queue_ms"]["p50"].get<double>(), 0.5);
        QVERIFY(calm["warnings"].empty());
        const auto queued = summarizeRun({}, {}, {}, { slow, slow, quick }, {});
        QCOMPARE(queued["send_queue_ms"]["p50"].get<double>(), 9.0);
        QCOMPARE(queued["warnings"].size(), std::size_t(1));
        QVERIFY(
            QString::fromStdString(queued["warnings"][0].get<std::string>()).contains(QStringLiteral("send_queue_ms")));
    }

    // The case: 80 streams, 25 of them only "data: [DONE]". Those are
    // errors (no_tokens) and stay out of req/s and tok/s.
    void emptyStreamsAreErrorsOutsideThroughput()
    {
        std::vector<RequestRecord> records;
        for (int i = 0; i < 80; ++i) {
            RequestRecord seed;
            seed.id = i;
            seed.tSendUs = i * 1000;
            StreamAccumulator acc(ApiKind::Completions, seed);
            acc.onStatus(200);
            const bool empty = i % 16 < 5; // 25 of 80
            acc.onBytes(empty ? QByteArray("data: [DONE]\n\n")
                              : QByteArray("data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
                                           "data: {\"choices\":[{\"text\":\"b\",\"finish_reason\":\"length\"}]}\n\n"
                                           "data: [DONE]\n\n"),
                seed.tSendUs + 500);
            records.push_back(acc.finish(seed.tSendUs + 900));
        }
        const auto s = summarizeRun({}, {}, {}, records, {});
        QCOMPARE(s["ok"].get<int>(), 55);
        QCOMPARE(s["errors"].get<int>(), 25);
        QCOMPARE(s["errors_by_reason"]["no_tokens"].get<int>(), 25);
        // 55 ok requests; the span runs from the first send (0) to the last ok end.
        qint64 lastEnd = 0;
        for (const RequestRecord& r : records)
            if (r.ok)
                lastEnd = std::max(lastEnd, r.tSendUs + r.e2eUs);
        QCOMPARE(s["req_per_s"].get<double>(), 55 / (double(lastEnd) / 1e6));
        QCOMPARE(s["out_tok_per_s"].get<double>(), 2 * 55 / (double(lastEnd) / 1e6));
    }

    // The CLI summary names what went wrong, not only the reason code.
    void errorDetailsAreKeptPerReason()
    {
        std::vector<RequestRecord> records;
        for (int i = 0; i < 4; ++i) {
            RequestRecord r = failed(i, QStringLiteral("transport"));
            r.errorDetail = i < 3 ? QStringLiteral("Connection refused") : QStringLiteral("Host unreachable");
            records.push_back(r);
        }
        records.push_back(failed(9, QStringLiteral("timeout")));
        const auto s = summarizeRun({}, {}, {}, records, {});
        const auto& transport = s["error_details"]["transport"];
        QCOMPARE(transport.size(), std::size_t(2));
        QCOMPARE(transport[0]["detail"].get<std::string>(), std::string("Connection refused"));
        QCOMPARE(transport[0]["count"].get<int>(), 3);
        QCOMPARE(transport[1]["count"].get<int>(), 1);
        const QString table = formatSummaryTable(s);
        QVERIFY2(table.contains(QStringLiteral("transport 4 (3x Connection refused, 1x Host unreachable)")),
            qPrintable(table));
        QVERIFY2(table.contains(QStringLiteral("timeout 1")), qPrintable(table));
    }

    void noSuccessesGiveNullPercentiles()
    {
        const auto s = summarizeRun({}, {}, {}, { failed(0, QStringLiteral("transport")) }, {});
        QVERIFY(s["ttft_ms"].is_null());
        QCOMPARE(s["req_per_s"].get<double>(), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestRunSummary)
#include "tst_runsummary.moc"
