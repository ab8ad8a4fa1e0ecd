// The knob-response and Pareto charts' data: figures taken from compare's
// JSON unchanged, values sorted, missing figures left out (never 0), the
// Pareto front against points whose front is known by hand.
#include "common/comparisonroundtrip.h"
#include "compare/comparison.h"
#include "compare/comparisonreader.h"
#include "compare/knobresponse.h"
#include "compare/paretofront.h"

#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json config(const char* label, json knobs, json ttftP99, json tokPerS = 100.0, json tpotP50 = 20.0)
{
    return { { "config", label }, { "knobs", knobs }, { "model", "sim-8b" },
        { "ttft_ms", { { "p50", 10.0 }, { "p95", 20.0 }, { "p99", ttftP99 } } },
        { "tpot_ms", { { "p50", tpotP50 }, { "p95", 25.0 }, { "p99", 30.0 } } }, { "req_per_s", 2.0 },
        { "out_tok_per_s", tokPerS }, { "goodput_req_per_s", 1.5 } };
}

} // namespace

class TestKnobResponse : public QObject {
    Q_OBJECT
private slots:
    void paretoFront_data()
    {
        QTest::addColumn<QVector<QPointF>>("points");
        QTest::addColumn<bool>("yHigher");
        QTest::addColumn<QVector<int>>("front"); // by x
        QTest::newRow("a staircase") << QVector<QPointF> { { 1, 10 }, { 2, 8 }, { 3, 5 }, { 2, 6 }, { 0.5, 9 } } << true
                                     << QVector<int> { 0, 1, 2 };
        QTest::newRow("one dominates all")
            << QVector<QPointF> { { 1, 1 }, { 5, 5 }, { 2, 4 } } << true << QVector<int> { 1 };
        QTest::newRow("equal points are both on it")
            << QVector<QPointF> { { 3, 3 }, { 3, 3 }, { 1, 1 } } << true << QVector<int> { 0, 1 };
        QTest::newRow("same x, better y wins") << QVector<QPointF> { { 2, 5 }, { 2, 7 } } << true << QVector<int> { 1 };
        QTest::newRow("lower y is better")
            << QVector<QPointF> { { 1, 100 }, { 2, 300 }, { 2, 200 }, { 3, 900 } } << false << QVector<int> { 0, 2, 3 };
    }
    void paretoFront()
    {
        QFETCH(QVector<QPointF>, points);
        QFETCH(bool, yHigher);
        QFETCH(QVector<int>, front);
        std::vector<ParetoPoint> p;
        for (const QPointF& q : points) {
            ParetoPoint x;
            x.x = q.x();
            x.y = q.y();
            p.push_back(x);
        }
        QVector<int> got;
        for (std::size_t i : ks::paretoFront(p, yHigher))
            got << int(i);
        QCOMPARE(got, front);
        for (std::size_t i = 0; i < p.size(); ++i)
            QCOMPARE(p[i].onFront, front.contains(int(i)));
    }

    void knobLineTakesCompareFiguresSortedAndLeavesMissingOut()
    {
        json a = config("mns64", { { "max_num_seqs", 64 } }, 300.0);
        a["ci95"] = { { "ttft_ms", { { "p99", { 250.0, 350.0 } } } }, { "method", "block-bootstrap+run-to-run" } };
        json b = config("mns8", { { "max_num_seqs", 8 } }, 2500.0);
        b["ci95"] = { { "ttft_ms", { { "p99", { 2400.0, 2600.0 } } } }, { "method", "block-bootstrap" } };
        b["repeats"] = { { "n", 3 }, { "runs", { "mns8/stress#1", "mns8/stress#2", "mns8/stress#3" } },
            { "rounds", { 1, 2, 3 } },
            { "spread",
                { { "ttft_ms",
                    { { "p99",
                        { { "values", { 2400.0, 2500.0, 2600.0 } }, { "mean", 2500.0 }, { "cv", 0.04 },
                            { "t_ci95", { 2300.0, 2700.0 } } } } } } } } };
        const json noValue = config("mns16", { { "max_num_seqs", 16 } }, nullptr);
        const json noKnob = config("default", json::object(), 400.0);
        const json c = config("mns128", { { "max_num_seqs", 128 } }, 280.0);
        const json compareJson = json::array({ { { "arm", "stress" },
            { "slo", { { "ttft_ms", 500.0 }, { "tpot_ms", 50.0 } } }, { "configs", { a, b, noValue, noKnob, c } } } });
        const Comparison compare = comparisonFromJson(compareJson);
        KnobResponse r;
        QString error;
        QVERIFY2(knobResponse(compare, QStringLiteral("max_num_seqs"), QStringLiteral("ttft_ms.p99"), &r, &error),
            qPrintable(error));
        QVERIFY(r.numeric);
        QVERIFY(r.logX); // 8 to 128: 16x
        QCOMPARE(r.slo.value_or(0), 500.0);
        QCOMPARE(int(r.series.size()), 1);
        const std::vector<KnobPoint>& p = r.series[0].points;
        QCOMPARE(int(p.size()), 3);
        QCOMPARE(p[0].config, QStringLiteral("mns8"));
        QCOMPARE(p[0].y, 2500.0);
        QCOMPARE(p[0].ci95->low, 2300.0); // across repeats when there are repeats
        QCOMPARE(p[0].method, QStringLiteral("repeats"));
        QCOMPARE(p[1].config, QStringLiteral("mns64"));
        QCOMPARE(p[1].ci95->high, 350.0);
        QCOMPARE(p[1].method, QStringLiteral("block-bootstrap+run-to-run"));
        QCOMPARE(p[2].x, 128.0);
        QVERIFY(!p[2].ci95); // compare has none: none drawn
        QCOMPARE(int(r.leftOut.size()), 2);
        QCOMPARE(r.leftOut[0].config, QStringLiteral("mns16"));
        QVERIFY(r.leftOut[0].reason.contains(QStringLiteral("ttft_ms.p99")));
        QCOMPARE(r.leftOut[1].config, QStringLiteral("default"));
        const json out = knobResponseJson(r);
        QCOMPARE(out["series"][0]["points"].size(), 3u);
        QCOMPARE(out["left_out"].size(), 2u);
    }

    void aSecondVaryingKnobSplitsTheLinesAndAModelIsCategorical()
    {
        json configs = json::array();
        for (const char* model : { "sim-8b", "sim-70b" })
            for (int mns : { 16, 32 }) {
                json c = config(qPrintable(QStringLiteral("%1-%2").arg(QLatin1String(model)).arg(mns)),
                    { { "max_num_seqs", mns } }, 100.0 * mns);
                c["model"] = model;
                configs.push_back(c);
            }
        const json compareJson = json::array({ { { "arm", "a" }, { "configs", configs } } });
        const Comparison compare = comparisonFromJson(compareJson);
        QCOMPARE(varyingKnobs(compare), (QStringList { QStringLiteral("max_num_seqs"), QStringLiteral("model") }));
        KnobResponse r;
        QString error;
        QVERIFY(knobResponse(compare, QStringLiteral("max_num_seqs"), QStringLiteral("req_per_s"), &r, &error));
        QVERIFY(!r.logX); // 2x
        QCOMPARE(int(r.series.size()), 2);
        QCOMPARE(r.series[1].label(), QStringLiteral("a · model=sim-70b"));
        QVERIFY(knobResponse(compare, QStringLiteral("model"), QStringLiteral("ttft_ms.p99"), &r, &error));
        QVERIFY(!r.numeric);
        QCOMPARE(r.categories, (QStringList { QStringLiteral("sim-8b"), QStringLiteral("sim-70b") }));
        QCOMPARE(r.series[0].group, QStringLiteral("max_num_seqs=16"));
        QCOMPARE(r.series[0].points[1].x, 1.0);
        QCOMPARE(r.series[0].points[1].y, 1600.0);
    }

    void clearErrors_data()
    {
        QTest::addColumn<QString>("knob");
        QTest::addColumn<QString>("metric");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown knob") << "block_size"
                                      << "ttft_ms.p99"
                                      << "no knob \"block_size\" in this file (knobs: max_num_seqs, model)";
        QTest::newRow("one value") << "model"
                                   << "ttft_ms.p99"
                                   << "knob \"model\" has one value in this file (sim-8b)";
        QTest::newRow("unknown metric") << "max_num_seqs"
                                        << "ttft.p99"
                                        << "unknown metric \"ttft.p99\"";
    }
    void clearErrors()
    {
        QFETCH(QString, knob);
        QFETCH(QString, metric);
        QFETCH(QString, message);
        const json compareJson = json::array({ { { "arm", "a" },
            { "configs",
                { config("x", { { "max_num_seqs", 8 } }, 1.0), config("y", { { "max_num_seqs", 9 } }, 1.0) } } } });
        const Comparison compare = comparisonFromJson(compareJson);
        KnobResponse r;
        QString error;
        QVERIFY(!knobResponse(compare, knob, metric, &r, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void paretoPointsPerGpuAndMissingLeftOut()
    {
        const json compareJson = json::array({ { { "arm", "a" },
            { "configs",
                { config("x", { { "max_num_seqs", 8 } }, 1.0, 800.0, 20.0),
                    config("y", { { "max_num_seqs", 16 } }, 1.0, 1600.0, 40.0),
                    config("z", { { "max_num_seqs", 32 } }, 1.0, 1000.0, nullptr),
                    config("w", { { "max_num_seqs", 64 } }, 1.0, 600.0, 25.0) } } } });
        const Comparison compare = comparisonFromJson(compareJson);
        const json environment = { { "gpus", json::array({ json::object(), json::object() }) } };
        const ParetoChart chart = paretoChart(compare, environment, ParetoY::TokensPerUser);
        QCOMPARE(chart.gpus, 2);
        QCOMPARE(int(chart.points.size()), 3);
        QCOMPARE(chart.points[0].x, 400.0);
        QCOMPARE(chart.points[0].y, 50.0); // 1000 / 20 ms
        QCOMPARE(chart.points[1].y, 25.0);
        QVERIFY(chart.points[0].onFront && chart.points[1].onFront && !chart.points[2].onFront);
        QCOMPARE(int(chart.leftOut.size()), 1);
        QCOMPARE(chart.leftOut[0].config, QStringLiteral("z"));
        QCOMPARE(chart.points[2].knobs["max_num_seqs"].get<int>(), 64);
        QVERIFY(chart.xTitle().contains(QStringLiteral("per GPU")));
    }

    void compareGivesEachConfigurationItsKnobs()
    {
        RunFile file;
        for (int mns : { 8, 32 }) {
            RunData run;
            run.config = QStringLiteral("mns%1").arg(mns);
            run.arm = QStringLiteral("a");
            run.run = run.config + QStringLiteral("/a");
            run.info = { { "knobs", { { "max_num_seqs", mns } } }, { "model", "sim-8b" } };
            RequestRecord r;
            r.ok = true;
            r.ttftUs = 1000 * mns;
            r.e2eUs = r.ttftUs + 10000;
            r.outTokens = 2;
            r.itlUs.assign(1, 10000);
            run.requests.push_back(r);
            file.runs.push_back(std::move(run));
        }
        CompareOptions options;
        options.resamples = 0;
        QString error;
        const json arms = test::comparedChecked(file, options, &error);
        QCOMPARE(arms[0]["configs"][1]["knobs"]["max_num_seqs"].get<int>(), 32);
        QCOMPARE(arms[0]["configs"][1]["model"].get<std::string>(), std::string("sim-8b"));
    }
};

QTEST_GUILESS_MAIN(TestKnobResponse)
#include "tst_knobresponse.moc"
