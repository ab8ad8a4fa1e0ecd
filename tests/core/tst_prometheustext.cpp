#include "telemetry/prometheustext.h"

#include <QFile>
#include <QTest>

#include <cmath>

using namespace ks;

namespace {

QByteArray fixture(const char* name)
{
    QFile file(QStringLiteral(KNOBSCOPE_TEST_DATA "/metrics/") + QLatin1String(name));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

LatencyHistograms histogramsOf(const char* name)
{
    return extractLatencyHistograms(parsePrometheusText(fixture(name)).samples);
}

} // namespace

const QByteArray kGaugesOnly = "vllm:num_requests_running 1\nvllm:request_queue_time_seconds_sum 3\n";

class TestPrometheusText : public QObject {
    Q_OBJECT
private slots:
    void parsesSamplesLabelsAndSpecialValues()
    {
        const QByteArray text = "# HELP vllm:num_requests_running Number of requests.\n"
                                "# TYPE vllm:num_requests_running gauge\n"
                                "vllm:num_requests_running{model_name=\"m\"} 32.0\n"
                                "\n"
                                "escaped{path=\"C:\\\\dir\",quote=\"say \\\"hi\\\"\",nl=\"a\\nb\"} 1\n"
                                "nan_metric NaN\n"
                                "inf_metric{le=\"+Inf\"} +Inf\n"
                                "neg_inf -Inf\n"
                                "with_timestamp 7 1700000000000\n"
                                "sci 1.5e-3\n"
                                "empty_labels{} 4\n";
        const PromParseResult r = parsePrometheusText(text);
        QCOMPARE(r.malformedLines, 0);
        QCOMPARE(r.samples.size(), std::size_t(8));
        QCOMPARE(r.samples[0].name, QStringLiteral("vllm:num_requests_running"));
        QCOMPARE(r.samples[0].labels.value(0),
            (QPair<QString, QString> { QStringLiteral("model_name"), QStringLiteral("m") }));
        QCOMPARE(r.samples[0].value, 32.0);
        QCOMPARE(r.samples[1].labels.value(0).second, QStringLiteral("C:\\dir"));
        QCOMPARE(r.samples[1].labels.value(1).second, QStringLiteral("say \"hi\""));
        QCOMPARE(r.samples[1].labels.value(2).second, QStringLiteral("a\nb"));
        QVERIFY(std::isnan(r.samples[2].value));
        QVERIFY(std::isinf(r.samples[3].value) && r.samples[3].value > 0);
        QCOMPARE(r.samples[3].labels.value(0).second, QStringLiteral("+Inf"));
        QVERIFY(std::isinf(r.samples[4].value) && r.samples[4].value < 0);
        QCOMPARE(r.samples[5].value, 7.0);
        QCOMPARE(r.samples[6].value, 0.0015);
        QVERIFY(r.samples[7].labels.isEmpty());
    }

    void histogramsParseWithoutDisturbingGauges()
    {
        const QByteArray text = "# TYPE vllm:time_to_first_token_seconds histogram\n"
                                "vllm:time_to_first_token_seconds_bucket{le=\"0.1\",model_name=\"m\"} 3\n"
                                "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 9\n"
                                "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} 2.5\n"
                                "vllm:time_to_first_token_seconds_count{model_name=\"m\"} 9\n"
                                "vllm:num_requests_waiting{model_name=\"m\"} 5\n";
        const PromParseResult r = parsePrometheusText(text);
        QCOMPARE(r.samples.size(), std::size_t(5));
        const ServerGauges g = extractServerGauges(r.samples);
        QCOMPARE(g.waiting.value_or(-1), 5.0);
        QVERIFY(!g.running);
    }

    // vLLM's phase histograms, summed over the two engines' label sets; the TTFT
    // histogram and the _created gauges beside them are not taken.
    void extractsVllmPhaseHistograms()
    {
        const PromParseResult parsed = parsePrometheusText(fixture("vllm_t1.prom"));
        QCOMPARE(parsed.malformedLines, 0);
        const LatencyHistograms h = extractLatencyHistograms(parsed.samples);
        QVERIFY(h.queue.present() && h.prefill.present() && h.decode.present());
        QCOMPARE(h.queue.upperBounds.size(), std::size_t(22)); // vLLM's 21 edges and +Inf
        QCOMPARE(h.queue.upperBounds.front(), 0.3);
        QCOMPARE(h.queue.upperBounds[20], 7680.0);
        QVERIFY(std::isinf(h.queue.upperBounds.back()));
        QCOMPARE(h.queue.cumulative.front(), 45.0 + 30.0);
        QCOMPARE(h.queue.cumulative.back(), 69.0 + 51.0);
        QCOMPARE(h.queue.count, 120.0);
        QCOMPARE(h.queue.sum, 20.1 + 14.2);
        QCOMPARE(h.prefill.cumulative[1], 50.0 + 34.0);
        QCOMPARE(h.decode.sum, 250.0 + 180.0);
        QVERIFY(!extractLatencyHistograms(parsePrometheusText(kGaugesOnly).samples).any());
    }

    // The arm's distribution is the bucket deltas between its first and last
    // scrape. Expected values by hand from the fixtures (summed over engines):
    // queue deltas, cumulative at 0.3/0.5/0.8/1.0/1.5 s: 60/80/90/95/100, sum 30 s;
    // prefill at 0.3/0.5/0.8 s: 20/70/100, sum 45 s.
    void splitFromHistogramDeltas()
    {
        const LatencyHistograms first = histogramsOf("vllm_t0.prom");
        const LatencyHistograms last = histogramsOf("vllm_t1.prom");
        const nlohmann::json split = ttftSplitFromHistograms(first, last, 900.0);
        QVERIFY(split.is_object());
        QCOMPARE(split["source"].get<std::string>(), std::string("vllm-histograms"));
        QCOMPARE(split["requests"].get<double>(), 100.0);
        const nlohmann::json& q = split["queue"];
        QCOMPARE(q["p50"].get<double>(), 250.0); // rank 50 of 60 in [0, 0.3]: 0.3 * 50/60
        QCOMPARE(q["p90"].get<double>(), 800.0); // rank 90: the top of (0.5, 0.8]
        QCOMPARE(q["p95"].get<double>(), 1000.0); // rank 95: the top of (0.8, 1.0]
        QCOMPARE(q["p99"].get<double>(), 1400.0); // rank 99: 1.0 + 0.5 * 4/5
        QCOMPARE(q["max"].get<double>(), 1500.0); // the highest non-empty bucket's edge
        QCOMPARE(q["mean"].get<double>(), 300.0); // exact: 30 s / 100
        // All a histogram knows of a percentile is the bucket that holds its rank.
        QVERIFY(q["bucket"]["p50"] == nlohmann::json::array({ 0.0, 300.0 }));
        QVERIFY(q["bucket"]["p90"] == nlohmann::json::array({ 500.0, 800.0 }));
        QVERIFY(q["bucket"]["p95"] == nlohmann::json::array({ 800.0, 1000.0 }));
        QVERIFY(q["bucket"]["p99"] == nlohmann::json::array({ 1000.0, 1500.0 }));
        QCOMPARE(ttftSplitPartText(split, "queue"), QStringLiteral("mean 300.0 (p50 250, in the bucket 0-300)"));
        const nlohmann::json& p = split["prefill"];
        QCOMPARE(p["p50"].get<double>(), 420.0); // 0.3 + 0.2 * 30/50
        QCOMPARE(p["p90"].get<double>(), 700.0); // 0.5 + 0.3 * 20/30
        QCOMPARE(p["p95"].get<double>(), 750.0);
        QCOMPARE(p["p99"].get<double>(), 790.0);
        QCOMPARE(p["max"].get<double>(), 800.0);
        QCOMPARE(p["mean"].get<double>(), 450.0);
        // Percentiles of a difference are not in separate histograms: rest is the mean only.
        QCOMPARE(split["rest"]["mean"].get<double>(), 900.0 - 300.0 - 450.0);
        QVERIFY(!split["rest"].contains("p50"));
    }

    void noSplitWithoutTwoConsistentSnapshots()
    {
        const LatencyHistograms first = histogramsOf("vllm_t0.prom");
        const LatencyHistograms last = histogramsOf("vllm_t1.prom");
        QVERIFY(ttftSplitFromHistograms(last, first, 900.0).is_null()); // counts went back: a restart
        QVERIFY(ttftSplitFromHistograms(last, last, 900.0).is_null()); // nothing finished in between
        QVERIFY(ttftSplitFromHistograms(LatencyHistograms(), last, 900.0).is_null());
        LatencyHistograms noPrefill = last;
        noPrefill.prefill = PromHistogram();
        QVERIFY(ttftSplitFromHistograms(first, noPrefill, 900.0).is_null());
        // Without a client TTFT the rest is unknown; queue and prefill still stand.
        const nlohmann::json split = ttftSplitFromHistograms(first, last, -1);
        QVERIFY(split["rest"].is_null());
        QCOMPARE(split["queue"]["mean"].get<double>(), 300.0);
    }

    void histogramQuantileEdges_data()
    {
        QTest::addColumn<std::vector<double>>("bounds");
        QTest::addColumn<std::vector<double>>("cumulative");
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("expected");
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("first bucket from 0")
            << std::vector<double> { 1, 2, inf } << std::vector<double> { 4, 4, 4 } << 0.5 << 0.5;
        QTest::newRow("in +Inf: the highest finite edge")
            << std::vector<double> { 1, 2, inf } << std::vector<double> { 1, 2, 10 } << 0.9 << 2.0;
        QTest::newRow("empty histogram") << std::vector<double> { 1, inf } << std::vector<double> { 0, 0 } << 0.5
                                         << 0.0;
        QTest::newRow("q 0 is the bottom")
            << std::vector<double> { 1, 2, inf } << std::vector<double> { 0, 5, 5 } << 0.0 << 0.0;
        QTest::newRow("q 1 is the top of the last non-empty bucket")
            << std::vector<double> { 1, 2, 4, inf } << std::vector<double> { 0, 5, 5, 5 } << 1.0 << 2.0;
    }
    void histogramQuantileEdges()
    {
        QFETCH(std::vector<double>, bounds);
        QFETCH(std::vector<double>, cumulative);
        QFETCH(double, q);
        QFETCH(double, expected);
        QCOMPARE(histogramQuantile(bounds, cumulative, q), expected);
    }

    void malformedLinesAreCountedAndSkipped()
    {
        const QByteArray text = "good 1\n"
                                "{no_name=\"x\"} 2\n"
                                "bad_value abc\n"
                                "unterminated{a=\"x 3\n"
                                "too many fields 1 2 3\n"
                                "also_good 2\n";
        const PromParseResult r = parsePrometheusText(text);
        QCOMPARE(r.malformedLines, 4);
        QCOMPARE(r.samples.size(), std::size_t(2));
    }

    void gaugesPerEngine_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("engine");
        QTest::addColumn<double>("running");
        QTest::addColumn<double>("waiting");
        QTest::addColumn<double>("kv");
        QTest::newRow("vllm") << QByteArray(
            "vllm:num_requests_running{model_name=\"a\"} 3\nvllm:num_requests_running{model_name=\"b\"} 4\n"
            "vllm:num_requests_waiting{model_name=\"a\"} 2\nvllm:kv_cache_usage_perc{model_name=\"a\"} 0.5\n")
                              << "vllm" << 7.0 << 2.0 << 0.5;
        QTest::newRow("vllm older kv name")
            << QByteArray("vllm:num_requests_running 1\nvllm:num_requests_waiting 0\nvllm:gpu_cache_usage_perc 0.25\n")
            << "vllm" << 1.0 << 0.0 << 0.25;
        QTest::newRow("sglang") << QByteArray(
            "sglang:num_running_reqs{tp_rank=\"0\"} 12\nsglang:num_queue_reqs{tp_rank=\"0\"} "
            "30\nsglang:token_usage{tp_rank=\"0\"} 0.8\n")
                                << "sglang" << 12.0 << 30.0 << 0.8;
        QTest::newRow("llama.cpp") << QByteArray("llamacpp:requests_processing 2\nllamacpp:requests_deferred 6\n")
                                   << "llamacpp" << 2.0 << 6.0 << -1.0;
    }
    void gaugesPerEngine()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, engine);
        QFETCH(double, running);
        QFETCH(double, waiting);
        QFETCH(double, kv);
        const ServerGauges g = extractServerGauges(parsePrometheusText(text).samples);
        QCOMPARE(g.engine, engine);
        QCOMPARE(g.running.value_or(-1), running);
        QCOMPARE(g.waiting.value_or(-1), waiting);
        QCOMPARE(g.kvCacheUsage.value_or(-1), kv);
    }

    void unknownServerHasNoGauges()
    {
        QVERIFY(!extractServerGauges(parsePrometheusText("process_cpu_seconds_total 3\n").samples).any());
    }
};

QTEST_GUILESS_MAIN(TestPrometheusText)
#include "tst_prometheustext.moc"
