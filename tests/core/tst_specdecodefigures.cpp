// Speculative-decoding figures from scraped /metrics: vLLM's counters and
// SGLang's gauge are read, an arm's summary takes counter deltas, and a run's
// snapshots carry the acceptance so far (the Live page's series).
#include "source/runsnapshotter.h"
#include "telemetry/metricsscraper.h"
#include "telemetry/prometheustext.h"

#include <QTest>

using namespace ks;

namespace {

QByteArray vllmText(int drafts, int draftTokens, int accepted)
{
    QByteArray out = "vllm:num_requests_running{model_name=\"m\"} 2\n";
    for (const char* engine : { "0", "1" }) { // two engines: the counters add up
        out += QByteArray("vllm:spec_decode_num_drafts_total{engine=\"") + engine + "\"} " + QByteArray::number(drafts)
            + '\n';
        out += QByteArray("vllm:spec_decode_num_draft_tokens_total{engine=\"") + engine + "\"} "
            + QByteArray::number(draftTokens) + '\n';
        out += QByteArray("vllm:spec_decode_num_accepted_tokens_total{engine=\"") + engine + "\"} "
            + QByteArray::number(accepted) + '\n';
    }
    return out;
}

ServerSample sampleOf(const QByteArray& text)
{
    ServerSample s;
    s.waiting = 0;
    s.specDecode = extractSpecDecode(parsePrometheusText(text).samples);
    return s;
}

} // namespace

class TestSpecDecodeFigures : public QObject {
    Q_OBJECT
private slots:
    void readsVllmCountersAndSglangGauge()
    {
        const auto vllm = extractSpecDecode(parsePrometheusText(vllmText(10, 40, 25)).samples);
        QVERIFY(vllm && vllm->counters);
        QCOMPARE(vllm->drafts, 20.0);
        QCOMPARE(vllm->draftTokens, 80.0);
        QCOMPARE(vllm->acceptedTokens, 50.0);
        QVERIFY(!vllm->acceptLength);
        const auto sglang = extractSpecDecode(parsePrometheusText("sglang:spec_accept_length 2.5\n").samples);
        QVERIFY(sglang && !sglang->counters);
        QCOMPARE(*sglang->acceptLength, 2.5);
        QVERIFY(!extractSpecDecode(parsePrometheusText("vllm:num_requests_running 1\n").samples));
        // Scrape-line JSON reads back to the same counters.
        const auto back = specDecodeFromJson(specDecodeJson(*vllm));
        QVERIFY(back && back->counters);
        QCOMPARE(back->acceptedTokens, 50.0);
    }

    void summaryTakesDeltasAndIsAbsentWithoutCounters()
    {
        ServerTally tally;
        tally.add(sampleOf(vllmText(10, 40, 25)));
        tally.add(sampleOf(vllmText(15, 60, 30)));
        nlohmann::json summary = nlohmann::json::object();
        // The final scrape (after the arm's last completion) wins over the last periodic one.
        tally.writeSpecDecode(summary, extractSpecDecode(parsePrometheusText(vllmText(20, 80, 45)).samples));
        QCOMPARE(summary["spec_acceptance"].get<double>(), 40.0 / 80.0); // (90 - 50) / (160 - 80)
        QCOMPARE(summary["spec_mean_accepted"].get<double>(), 1 + 40.0 / 20.0);

        ServerTally none;
        none.add(sampleOf("vllm:num_requests_running 1\n"));
        nlohmann::json empty = nlohmann::json::object();
        none.writeSpecDecode(empty, std::nullopt);
        QVERIFY(empty.empty());
    }

    void snapshotCarriesTheAcceptanceSoFar()
    {
        RunSnapshotter snapshots;
        snapshots.beginRun(QStringLiteral("a/c1"), QStringLiteral("a"), QStringLiteral("m"), -1);
        QCOMPARE(snapshots.snapshot(1000).specAcceptance, -1.0);
        snapshots.addSpecDecode(*extractSpecDecode(parsePrometheusText(vllmText(10, 40, 25)).samples));
        snapshots.addSpecDecode(*extractSpecDecode(parsePrometheusText(vllmText(20, 80, 35)).samples));
        const RunSnapshot s = snapshots.snapshot(2000);
        QCOMPARE(s.specAcceptance, 20.0 / 80.0);
        QCOMPARE(s.specMeanAccepted, 1 + 20.0 / 20.0);
        snapshots.beginRun(QStringLiteral("b/c1"), QStringLiteral("b"), QStringLiteral("m"), -1);
        QCOMPARE(snapshots.snapshot(1000).specAcceptance, -1.0); // a new run starts without
    }
};

QTEST_GUILESS_MAIN(TestSpecDecodeFigures)
#include "tst_specdecodefigures.moc"
