#include "run/prometheustext.h"

#include <QTest>

#include <cmath>

using namespace ks;

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
