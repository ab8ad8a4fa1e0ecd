#include "client/streamaccumulator.h"
#include "metrics/runsummary.h"
#include "metrics/ttftsplit.h"

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

// An ok request sent at `sendMs` whose headers came `waitMs` later and first token `ttftMs` after the send.
RequestRecord withHeaders(qint64 id, double sendMs, double waitMs, double ttftMs, double promptMs = -1)
{
    RequestRecord r = okRecord(id, qint64(sendMs * 1000), qint64(ttftMs * 1000), qint64(ttftMs * 1000) + 50'000, 6);
    r.tHeadersUs = r.tSendUs + qint64(waitMs * 1000);
    if (promptMs >= 0)
        r.server = { promptMs, 48.5, 100, 6, 0 };
    return r;
}

nlohmann::json summaryOf(const std::vector<RequestRecord>& records, bool loaded)
{
    if (!loaded)
        return summarizeRun({}, {}, {}, records, {});
    RequestTable table;
    for (const RequestRecord& r : records)
        table.push_back(r);
    return summarizeRun({}, {}, {}, table, {});
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

    // A late loop with an idle client is the machine's doing, and says so; the
    // same lateness with the client's threads busy is the client's.
    void lateLoopNamesItsCause()
    {
        const std::vector<RequestRecord> records = { okRecord(0, 0, 100, 200, 2) };
        ClientLoad idleClient = clientLoad(12.0, 0.01);
        idleClient.loadAverage = 18.5;
        const auto machine = summarizeRun({}, {}, {}, records, {}, idleClient);
        QCOMPARE(machine["client"]["client_bound"].get<bool>(), false);
        QCOMPARE(machine["client"]["busy_machine"].get<bool>(), true);
        const QString warning = QString::fromStdString(machine["warnings"][0].get<std::string>());
        QVERIFY2(warning.startsWith(QStringLiteral("busy machine")), qPrintable(warning));
        QVERIFY2(warning.contains(QStringLiteral("load average 18.5")), qPrintable(warning));
        const auto client = summarizeRun({}, {}, {}, records, {}, clientLoad(12.0, 0.4)); // 0.8 of a core
        QCOMPARE(client["client"]["client_bound"].get<bool>(), true);
        QCOMPARE(client["client"]["busy_machine"].get<bool>(), false);
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

    // llama.cpp: per request, queue = headers - send, prefill = the server's
    // prompt_ms, rest = TTFT - both. Values by hand (numpy's linear percentiles).
    void ttftSplitFromLlamaCppTimings_data()
    {
        QTest::addColumn<bool>("loaded");
        QTest::newRow("live records") << false;
        QTest::newRow("loaded table") << true;
    }
    void ttftSplitFromLlamaCppTimings()
    {
        QFETCH(bool, loaded);
        std::vector<RequestRecord> records = {
            withHeaders(0, 0, 2, 30, 20), // rest 8
            withHeaders(1, 10, 4, 40, 30), // 6
            withHeaders(2, 20, 6, 50, 40), // 4
            withHeaders(3, 30, 8, 60, 50), // 2
            withHeaders(4, 40, 10, 100, 60), // 30
        };
        RequestRecord warm = withHeaders(5, 0, 500, 900, 300);
        warm.warmup = true;
        records.push_back(warm);
        RequestRecord noHeaders = withHeaders(6, 0, 0, 900, 300);
        noHeaders.tHeadersUs = -1;
        records.push_back(noHeaders);
        RequestRecord error = failed(7, QStringLiteral("http_500"));
        error.tHeadersUs = 100;
        error.server.promptMs = 700;
        records.push_back(error);
        const nlohmann::json split = summaryOf(records, loaded)["ttft_split_ms"];
        QVERIFY(split.is_object());
        QCOMPARE(split["source"].get<std::string>(), std::string("llamacpp-timings"));
        QCOMPARE(split["requests"].get<int>(), 5);
        QCOMPARE(split["queue"]["p50"].get<double>(), 6.0);
        QCOMPARE(split["queue"]["p90"].get<double>(), 9.2); // 8 + 0.6 * (10 - 8)
        QCOMPARE(split["queue"]["max"].get<double>(), 10.0);
        QCOMPARE(split["prefill"]["p50"].get<double>(), 40.0);
        QCOMPARE(split["prefill"]["mean"].get<double>(), 40.0);
        QCOMPARE(split["rest"]["p50"].get<double>(), 6.0);
        QCOMPARE(split["rest"]["p90"].get<double>(), 21.2); // 8 + 0.6 * (30 - 8)
        QCOMPARE(split["rest"]["max"].get<double>(), 30.0);
        QCOMPARE(split["rest"]["mean"].get<double>(), 10.0);
    }

    // Headers alone are never a split: only llama.cpp is shown (tests/realengine)
    // to hold them until a slot takes the request, and it sends timings too; vLLM
    // and knobscope-sim send them on arrival, where the wait is the client's own
    // event loop (7 ms on a loaded machine, for requests that queued 6.9 s).
    void headersAloneAreNeverASplit_data()
    {
        QTest::addColumn<std::vector<double>>("waits");
        QTest::newRow("waits that look like a queue") << std::vector<double> { 0.5, 3, 5, 7, 9 };
        QTest::newRow("local, answered at once") << std::vector<double> { 0.2, 0.3, 0.25, 0.3, 0.4 };
        QTest::newRow("remote, answered at once") << std::vector<double> { 20, 20.3, 20.1, 20.4, 20.2 };
    }
    void headersAloneAreNeverASplit()
    {
        QFETCH(std::vector<double>, waits);
        std::vector<RequestRecord> records;
        for (std::size_t i = 0; i < waits.size(); ++i)
            records.push_back(withHeaders(qint64(i), double(i) * 10, waits[i], 50 + double(i)));
        const nlohmann::json s = summaryOf(records, true);
        QVERIFY(!s.contains("ttft_split_ms"));
        QVERIFY(!formatSummaryTable(s).contains(QStringLiteral("ttft split")));
    }

    void noSourceNoSplit()
    {
        const auto s = summarizeRun({}, {}, {}, { okRecord(0, 0, 100'000, 300'000, 11) }, {});
        QVERIFY(!s.contains("ttft_split_ms"));
        QVERIFY(!formatSummaryTable(s).contains(QStringLiteral("ttft split")));
    }

    // A split read back from a file can have any type anywhere: shown as far as
    // it can be, never a throw (value() on a wrong type throws in nlohmann).
    void wrongTypedSplitIsNeverAThrow()
    {
        for (const nlohmann::json& bad : { nlohmann::json(5), nlohmann::json::array({ 1 }), nlohmann::json(nullptr),
                 nlohmann::json::object({ { "k", 1 } }), nlohmann::json(true) }) {
            nlohmann::json summary = { { "ttft_split_ms",
                { { "source", bad }, { "requests", bad }, { "queue", { { "p50", bad }, { "mean", bad } } },
                    { "rest", bad } } } };
            QVERIFY(ttftSplitBrief(summary).contains(QStringLiteral(" ms (")));
            QVERIFY(formatTtftSplit(summary).contains(QStringLiteral("ttft split from")));
            QVERIFY(!ttftSplitPartText(summary["ttft_split_ms"], "queue").isEmpty());
            offerTtftSplit(summary, { { "source", "headers" } }); // an older file's headers split is not taken
            QVERIFY(summary["ttft_split_ms"]["source"] == bad);
        }
    }

    // Timings beat histograms, whatever the order they are offered in; an older
    // file's `headers` split is never taken.
    void betterSourcesWin()
    {
        const nlohmann::json headers = { { "source", "headers" } };
        const nlohmann::json histograms = { { "source", "vllm-histograms" } };
        const nlohmann::json timings = { { "source", "llamacpp-timings" } };
        nlohmann::json s = nlohmann::json::object();
        offerTtftSplit(s, nullptr);
        QVERIFY(!s.contains("ttft_split_ms"));
        offerTtftSplit(s, headers);
        QVERIFY(!s.contains("ttft_split_ms"));
        offerTtftSplit(s, histograms);
        QVERIFY(s["ttft_split_ms"] == histograms);
        offerTtftSplit(s, headers);
        QVERIFY(s["ttft_split_ms"] == histograms);
        offerTtftSplit(s, timings);
        offerTtftSplit(s, histograms);
        QVERIFY(s["ttft_split_ms"] == timings);
        offerTtftSplit(s, { { "source", "guessed" } });
        QVERIFY(s["ttft_split_ms"] == timings);
    }

    void tableShowsTheSplitWithItsSource()
    {
        const std::vector<RequestRecord> records = { withHeaders(0, 0, 2, 30, 20), withHeaders(1, 10, 4, 40, 30) };
        const QString table = formatSummaryTable(summarizeRun({}, {}, {}, records, {}));
        QVERIFY2(table.contains(QStringLiteral("ttft queue")), qPrintable(table));
        QVERIFY(table.contains(QStringLiteral("ttft prefill")));
        QVERIFY(table.contains(QStringLiteral("ttft split from llamacpp-timings (2 requests)")));
        nlohmann::json s = nlohmann::json::object();
        s["ttft_split_ms"] = { { "queue", { { "p50", 250.0 } } }, { "prefill", { { "p50", 420.0 } } },
            { "rest", { { "mean", 150.0 } } }, { "source", "vllm-histograms" }, { "requests", 100 } };
        const QString histogramTable = formatSummaryTable(s);
        QVERIFY2(histogramTable.contains(QStringLiteral("rest is mean only: 150.0 ms")), qPrintable(histogramTable));
        QVERIFY(histogramTable.contains(QStringLiteral("250.0")));
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
