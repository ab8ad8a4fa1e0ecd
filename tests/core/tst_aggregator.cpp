#include "metrics/aggregator.h"
#include "metrics/loghistogram.h"
#include "metrics/runsummary.h"

#include <QTest>

#include <cmath>

using namespace ks;

namespace {

RequestRecord done(qint64 id, qint64 sendUs, qint64 ttftUs, qint64 e2eUs, int out)
{
    RequestRecord r;
    r.id = id;
    r.tSendUs = sendUs;
    r.tSchedUs = sendUs;
    r.ttftUs = ttftUs;
    r.e2eUs = e2eUs;
    r.outTokens = out;
    r.ok = true;
    for (int i = 1; i < out; ++i)
        r.itlUs.push_back(std::int32_t((e2eUs - ttftUs) / (out - 1)));
    return r;
}

// Cumulative percentiles come from a log-linear histogram: within its bound of the exact value.
bool withinBound(double reported, double exact)
{
    return std::abs(reported - exact) <= LogHistogram::kRelativeError * std::abs(exact) + 1e-12;
}

} // namespace

class TestAggregator : public QObject {
    Q_OBJECT
private slots:
    void cumulativeMatchesTheRunSummary()
    {
        std::vector<RequestRecord> records;
        for (int i = 0; i < 200; ++i)
            records.push_back(done(i, i * 10'000, 50'000 + (i * 7919) % 400'000, 2'000'000 + i * 1000, 33));
        RequestRecord bad;
        bad.error = QStringLiteral("http_500");
        records.push_back(bad);
        Aggregator agg;
        for (auto it = records.rbegin(); it != records.rend(); ++it) // any order
            agg.add(*it);
        const RunSnapshot s = agg.snapshot(100'000'000);
        const auto summary = summarizeRun({}, {}, {}, records, {});
        QCOMPARE(s.done, 201);
        QCOMPARE(s.ok, 200);
        QCOMPARE(s.errorsByReason.value(QStringLiteral("http_500")), 1);
        QVERIFY(withinBound(s.ttftMs.p50, summary["ttft_ms"]["p50"].get<double>()));
        QVERIFY(withinBound(s.ttftMs.p99, summary["ttft_ms"]["p99"].get<double>()));
        QVERIFY(withinBound(s.tpotMs.p95, summary["tpot_ms"]["p95"].get<double>()));
        QCOMPARE(s.ttftMs.max, summary["ttft_ms"]["max"].get<double>()); // max, count and mean stay exact
        QCOMPARE(s.itlMs.count, summary["itl_ms"]["count"].get<int>());
        QVERIFY(std::abs(s.itlMs.mean - summary["itl_ms"]["mean"].get<double>()) < 1e-9);
    }

    void windowHoldsOnlyRecentCompletions()
    {
        Aggregator agg(10.0);
        // Ten slow requests finishing at 1..10 s, then ten fast ones finishing at 21..30 s.
        for (int i = 0; i < 10; ++i)
            agg.add(done(i, 0, 900'000, (i + 1) * 1'000'000, 2));
        for (int i = 0; i < 10; ++i)
            agg.add(done(10 + i, 20'000'000, 100'000, (i + 1) * 1'000'000, 2));
        const RunSnapshot early = agg.snapshot(10'500'000);
        QCOMPARE(early.ttftWindowMs.count, 10);
        QCOMPARE(early.ttftWindowMs.p50, 900.0);
        QCOMPARE(early.windowReqPerS, 1.0);
        const RunSnapshot late = agg.snapshot(30'000'000);
        QCOMPARE(late.ttftWindowMs.count, 10); // only the fast ones: (20 s, 30 s]
        QCOMPARE(late.ttftWindowMs.p50, 100.0);
        QCOMPARE(late.ttftMs.count, 20); // cumulative keeps both
        QVERIFY(withinBound(late.ttftMs.p50, 500.0));
        QCOMPARE(late.windowOutTokPerS, 2.0);
    }

    void warmupIsExcluded()
    {
        // Probe passes are runs of their own, so their requests count there.
        Aggregator agg;
        RequestRecord warm = done(0, 0, 1000, 2000, 2);
        warm.warmup = true;
        RequestRecord probe = done(1, 0, 1000, 2000, 2);
        probe.probe = QStringLiteral("p1");
        agg.add(warm);
        agg.add(probe);
        QCOMPARE(agg.snapshot(10'000).done, 1);
    }
};

QTEST_GUILESS_MAIN(TestAggregator)
#include "tst_aggregator.moc"
