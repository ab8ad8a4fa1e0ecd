#include "compare/comparegate.h"
#include "compare/comparisonreader.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ks;
using json = nlohmann::json;

namespace {

GateCondition condition(const QString& text)
{
    auto parsed = parseGateCondition(text);
    if (const QString* problem = std::get_if<QString>(&parsed))
        qFatal("%s", qPrintable(*problem));
    return std::get<GateCondition>(parsed);
}

// One arm, baseline "a", as compareRuns writes it: b's TTFT p99 ratio is `ratio` with `interval`.
json armWith(double ratio, std::pair<double, double> interval)
{
    json a = { { "config", "a" }, { "ttft_ms", { { "p99", 100.0 } } },
        { "ci95", { { "ttft_ms", { { "p99", { 95.0, 105.0 } } } } } }, { "errors", 0 }, { "req_per_s", 10.0 },
        { "ratio", { { "ttft_ms", { { "p99", 1.0 } } }, { "req_per_s", 1.0 } } } };
    json b = { { "config", "b" }, { "ttft_ms", { { "p99", 100.0 * ratio } } },
        { "ci95", { { "ttft_ms", { { "p99", { 100.0 * interval.first, 100.0 * interval.second } } } } } },
        { "errors", 2 }, { "req_per_s", 8.0 },
        { "ratio", { { "ttft_ms", { { "p99", ratio } } }, { "req_per_s", 0.8 } } },
        { "ratio_ci95", { { "ttft_ms", { { "p99", { interval.first, interval.second } } } } } } };
    return json::array({ { { "arm", "stress" }, { "baseline", "a" }, { "configs", { a, b } } } });
}

std::vector<GateVerdict> judge(const QString& text, const json& compare, GateOptions options = {})
{
    QStringList unmatched;
    // Hand-written JSON, read as compare's own output is (compare/comparisonreader.h).
    auto verdicts = evaluateGate({ condition(text) }, comparisonFromJson(compare), nullptr, options, &unmatched);
    if (!unmatched.isEmpty())
        qFatal("%s", qPrintable(unmatched.join(QLatin1Char('\n'))));
    return verdicts;
}

} // namespace

class TestCompareGate : public QObject {
    Q_OBJECT
private slots:
    void parsesConditions()
    {
        const GateCondition c = condition(QStringLiteral(" stress : ttft_ms.p99 >= 1.10x "));
        QCOMPARE(c.arm, QStringLiteral("stress"));
        QCOMPARE(c.metric, QStringLiteral("ttft_ms.p99"));
        QCOMPARE(c.op, GateCondition::Op::GreaterEqual);
        QCOMPARE(c.threshold, 1.10);
        QVERIFY(c.relative);
        const GateCondition absolute = condition(QStringLiteral("e2e_ms.p50<800"));
        QVERIFY(absolute.arm.isEmpty());
        QVERIFY(!absolute.relative);
        QCOMPARE(absolute.op, GateCondition::Op::Less);
        QCOMPARE(condition(QStringLiteral("goodput_req_per_s < 0.9x")).metric, QStringLiteral("goodput_req_per_s"));
        QCOMPARE(condition(QStringLiteral("probes:drift > 0")).metric, QStringLiteral("drift"));
    }

    void rejectsMalformedConditions_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("no operator") << QStringLiteral("ttft_ms.p99 1.1x") << QStringLiteral("expected [ARM:]METRIC");
        QTest::newRow("double operator") << QStringLiteral("ttft_ms.p99 >> 3") << QStringLiteral("expected");
        QTest::newRow("unknown metric") << QStringLiteral("ttft.p99 > 3") << QStringLiteral("unknown metric");
        QTest::newRow("unknown percentile") << QStringLiteral("ttft_ms.p42 > 3") << QStringLiteral("unknown metric");
        QTest::newRow("ratio of a count") << QStringLiteral("errors > 1.5x") << QStringLiteral("no ratio");
        QTest::newRow("zero ratio") << QStringLiteral("req_per_s < 0x") << QStringLiteral("above 0");
        QTest::newRow("huge number") << QStringLiteral("errors > 1e400") << QStringLiteral("not a finite number");
        QTest::newRow("drift on a load arm") << QStringLiteral("stress:drift > 0") << QStringLiteral("probe passes");
        QTest::newRow("empty") << QString() << QStringLiteral("expected");
    }
    void rejectsMalformedConditions()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        const auto parsed = parseGateCondition(text);
        QVERIFY(std::holds_alternative<QString>(parsed));
        QVERIFY2(std::get<QString>(parsed).contains(says), qPrintable(std::get<QString>(parsed)));
    }

    // A condition fails only when the whole interval is past the threshold.
    void judgesByTheWholeInterval()
    {
        auto v = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), armWith(1.3, { 1.2, 1.4 }));
        QCOMPARE(v.size(), std::size_t(1)); // the baseline is not judged against itself
        QCOMPARE(v[0].config, QStringLiteral("b"));
        QVERIFY(v[0].failed);
        QVERIFY(v[0].interval);
        QVERIFY(v[0].reason.contains(QStringLiteral("whole 95 % interval")));

        v = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), armWith(1.3, { 1.05, 1.6 }));
        QVERIFY(!v[0].failed); // the point estimate is past, the interval is not
        QVERIFY(v[0].reason.contains(QStringLiteral("--strict")));
        GateOptions strict;
        strict.strict = true;
        QVERIFY(judge(QStringLiteral("ttft_ms.p99 > 1.10x"), armWith(1.3, { 1.05, 1.6 }), strict)[0].failed);

        // Downward: the interval's upper end must be below.
        QVERIFY(judge(QStringLiteral("ttft_ms.p99 < 0.9x"), armWith(0.7, { 0.6, 0.8 }))[0].failed);
        QVERIFY(!judge(QStringLiteral("ttft_ms.p99 < 0.9x"), armWith(0.7, { 0.6, 0.95 }))[0].failed);
        QVERIFY(!judge(QStringLiteral("ttft_ms.p99 > 1.10x"), armWith(1.0, { 0.9, 1.1 }))[0].failed);
        QVERIFY(judge(QStringLiteral("ttft_ms.p99 >= 1.10x"), armWith(1.2, { 1.1, 1.3 }))[0].failed);
    }

    void absoluteConditionsJudgeEveryConfiguration()
    {
        const auto v = judge(QStringLiteral("errors > 0"), armWith(1.0, { 0.9, 1.1 }));
        QCOMPARE(v.size(), std::size_t(2));
        QVERIFY(!v[0].failed);
        QVERIFY(v[1].failed);
        QCOMPARE(v[1].value, 2.0);
        // Milliseconds with the interval of the value itself.
        const auto ms = judge(QStringLiteral("ttft_ms.p99 > 120"), armWith(1.3, { 1.25, 1.4 }));
        QVERIFY(!ms[0].failed);
        QVERIFY(ms[1].failed);
        // Throughput has no interval: the point estimate, said so.
        const auto rate = judge(QStringLiteral("req_per_s < 0.9x"), armWith(1.0, { 0.9, 1.1 }));
        QVERIFY(rate[0].failed);
        QVERIFY(rate[0].reason.contains(QStringLiteral("no interval")));
        GateOptions onlyB;
        onlyB.configs = { QStringLiteral("b") };
        QCOMPARE(judge(QStringLiteral("errors > 0"), armWith(1.0, { 0.9, 1.1 }), onlyB).size(), std::size_t(1));
    }

    void aMissingValueFails()
    {
        json compare = armWith(1.3, { 1.2, 1.4 });
        compare[0]["configs"][1]["ratio"]["ttft_ms"]["p99"] = nullptr; // every request failed
        const auto v = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), compare);
        QVERIFY(v[0].failed);
        QVERIFY(std::isnan(v[0].value));
        QVERIFY(v[0].reason.contains(QStringLiteral("no value")));
    }

    void armsAreMatchedByName()
    {
        QStringList unmatched;
        const auto v = evaluateGate({ condition(QStringLiteral("steady:errors > 0")) },
            comparisonFromJson(armWith(1.0, { 0.9, 1.1 })), nullptr, {}, &unmatched);
        QVERIFY(v.empty());
        QCOMPARE(unmatched.size(), 1);
        QVERIFY(unmatched[0].contains(QStringLiteral("no arm named steady")));
        QCOMPARE(judge(QStringLiteral("stress:errors > 0"), armWith(1.0, { 0.9, 1.1 })).size(), std::size_t(2));
    }

    void driftCountsProbesThatChanged()
    {
        DriftReport report;
        ConfigDrift steady;
        steady.config = QStringLiteral("a");
        ConfigDrift drifting;
        drifting.config = QStringLiteral("b");
        drifting.withinRun = { QStringLiteral("p1"), QStringLiteral("p2") };
        drifting.acrossRestart = { QStringLiteral("p2"), QStringLiteral("p3") };
        drifting.acrossConfig = { QStringLiteral("p9") }; // another configuration's output: not drift
        report.configs = { steady, drifting };
        QStringList unmatched;
        const auto v = evaluateGate({ condition(QStringLiteral("drift > 0")) }, Comparison {}, &report, {}, &unmatched);
        QCOMPARE(v.size(), std::size_t(2));
        QVERIFY(!v[0].failed);
        QVERIFY(v[1].failed);
        QCOMPARE(v[1].value, 3.0);
        QCOMPARE(v[1].arm, QStringLiteral("probes"));
        evaluateGate({ condition(QStringLiteral("drift > 0")) }, Comparison {}, nullptr, {}, &unmatched);
        QVERIFY(unmatched.join(QString()).contains(QStringLiteral("no probe passes")));
    }

    void writesJunitAndMarkdown()
    {
        auto verdicts = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), armWith(1.3, { 1.2, 1.4 }));
        const auto ok = judge(QStringLiteral("errors > 5"), armWith(1.0, { 0.9, 1.1 }));
        verdicts.insert(verdicts.end(), ok.begin(), ok.end());
        const QString xml = QString::fromUtf8(gateJunit(verdicts));
        QVERIFY(xml.contains(QStringLiteral("tests=\"3\" failures=\"1\"")));
        QCOMPARE(xml.count(QStringLiteral("<testcase ")), 3);
        QCOMPARE(xml.count(QStringLiteral("<failure ")), 1);
        QVERIFY(xml.contains(QStringLiteral("name=\"b: ttft_ms.p99 &gt; 1.10x\"")));
        QVERIFY(!xml.contains(QStringLiteral("> 1.10x"))); // escaped everywhere
        const QString md = gateMarkdown(verdicts, false);
        QVERIFY(md.startsWith(QStringLiteral("**knobscope gate: failed**, 1 of 3 checks")));
        QVERIFY(gateMarkdown(ok, false).startsWith(QStringLiteral("**knobscope gate: passed**, 2 checks")));
    }

    // Each decision says how its interval was made; one resting on one run's interval says so.
    void decisionsSayTheirMethod()
    {
        json compare = armWith(1.3, { 1.2, 1.4 });
        json& b = compare[0]["configs"][1];
        b["run_to_run"] = { { "measured", false }, { "method", "within-run" }, { "rounds", 1 }, { "confidence", 0.95 },
            { "note", "within one run; run-to-run not measured: add repeats or calibrate" } };
        auto v = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), compare);
        QVERIFY(v[0].failed);
        QVERIFY(!v[0].runToRunMeasured);
        QCOMPARE(v[0].method, QStringLiteral("within-run"));
        QVERIFY2(v[0].reason.contains(QStringLiteral("run-to-run not measured (one run each): this decision rests on "
                                                     "one run's interval; add repeats or a calibration")),
            qPrintable(v[0].reason));
        // A rate has no interval, but still rests on one run.
        QVERIFY(judge(QStringLiteral("req_per_s < 0.9x"), compare)[0].reason.contains(
            QStringLiteral("run-to-run not measured")));
        // Counts are counted: nothing about intervals.
        QVERIFY(!judge(QStringLiteral("errors > 5"), compare)[1].reason.contains(QStringLiteral("run-to-run")));
        const QString xml = QString::fromUtf8(gateJunit(v));
        QVERIFY2(
            xml.contains(QStringLiteral("<property name=\"ci95.method\" value=\"within-run\"/>")), qPrintable(xml));
        QVERIFY(xml.contains(QStringLiteral("this decision rests on one run&#39;s interval"))
            || xml.contains(QStringLiteral("this decision rests on one run's interval")));
        QVERIFY2(gateMarkdown(v, false).contains(QStringLiteral("1 of 1 rest on one run each")),
            qPrintable(gateMarkdown(v, false)));

        b["run_to_run"] = { { "measured", true }, { "method", "rounds" }, { "rounds", 3 }, { "confidence", 0.95 } };
        v = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), compare);
        QVERIFY(v[0].runToRunMeasured);
        QVERIFY2(
            v[0].reason.endsWith(QStringLiteral("; 95 % intervals across 3 paired rounds")), qPrintable(v[0].reason));
        QVERIFY(QString::fromUtf8(gateJunit(v)).contains(QStringLiteral("value=\"rounds\"")));
        // No interval (a count): the property says none.
        QVERIFY(QString::fromUtf8(gateJunit(judge(QStringLiteral("errors > 5"), compare)))
                    .contains(QStringLiteral("<property name=\"ci95.method\" value=\"none\"/>")));
    }

    // An interval across the threshold is undecided, with the rounds that would decide a 5 % difference.
    void undecidedSaysSo()
    {
        json compare = armWith(1.3, { 1.05, 1.6 });
        json& b = compare[0]["configs"][1];
        b["run_to_run"] = { { "measured", true }, { "method", "rounds" }, { "rounds", 3 }, { "confidence", 0.95 } };
        b["rounds_needed"] = { { "for", 0.05 }, { "ttft_ms", { { "p99", 9 } } } };
        const auto v = judge(QStringLiteral("ttft_ms.p99 > 1.10x"), compare);
        QVERIFY(!v[0].failed);
        QVERIFY(v[0].undecided);
        QVERIFY2(v[0].reason.contains(QStringLiteral("undecided: the 95 % interval [1.050x, 1.600x] spans the "
                                                     "threshold 1.100x")),
            qPrintable(v[0].reason));
        QVERIFY2(v[0].reason.contains(QStringLiteral("about 9 paired rounds would resolve a 5 % difference")),
            qPrintable(v[0].reason));
        QVERIFY(!judge(QStringLiteral("ttft_ms.p99 > 1.70x"), compare)[0].undecided); // clear of it
        QVERIFY(gateMarkdown(v, false).contains(QStringLiteral("1 undecided")));
    }

    // The command: exit 0 when every condition holds, 3 when one fails, 2 when one is malformed.
    void commandExitCodes()
    {
        const QString fixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");
        QTemporaryDir dir;
        const QString junit = dir.filePath(QStringLiteral("gate.xml"));
        auto run = [&](const QStringList& gate) {
            QProcess p;
            p.start(QStringLiteral(KNOBSCOPE_BIN),
                QStringList { QStringLiteral("compare"), fixture, QStringLiteral("--resamples"), QStringLiteral("1000"),
                    QStringLiteral("--junit"), junit }
                    + gate);
            p.waitForFinished(120000);
            return p.exitCode();
        };
        // In the fixture mns16's TTFT p99 is 0.05x mns2's: far below any regression.
        QCOMPARE(run({ QStringLiteral("--fail-if"), QStringLiteral("ttft_ms.p99 > 1.10x") }), 0);
        QFile passed(junit);
        QVERIFY(passed.open(QIODevice::ReadOnly));
        QVERIFY(passed.readAll().contains("failures=\"0\""));
        passed.close();
        QCOMPARE(run({ QStringLiteral("--fail-if"), QStringLiteral("burst:ttft_ms.p99 < 0.5x") }), 3);
        QFile failed(junit);
        QVERIFY(failed.open(QIODevice::ReadOnly));
        QVERIFY(failed.readAll().contains("<failure "));
        QCOMPARE(run({ QStringLiteral("--fail-if"), QStringLiteral("ttft_ms.p99 >> 1") }), 2);
        QCOMPARE(run({ QStringLiteral("--fail-if"), QStringLiteral("steady:errors > 0") }), 2);
        // Two files, two configurations each: a ratio needs a named baseline rather than a guess.
        QCOMPARE(run({ fixture, QStringLiteral("--fail-if"), QStringLiteral("ttft_ms.p99 > 2x") }), 2);
        QCOMPARE(run({ fixture, QStringLiteral("--baseline"), QStringLiteral("mns2 @2"), QStringLiteral("--fail-if"),
                     QStringLiteral("ttft_ms.p99 > 2x") }),
            0);
    }
};

QTEST_GUILESS_MAIN(TestCompareGate)
#include "tst_comparegate.moc"
