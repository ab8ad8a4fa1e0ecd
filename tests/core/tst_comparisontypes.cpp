// The typed comparison (compare/comparisontypes.h) against the JSON it is read
// from. Every comparison the other compare tests make goes through
// comparedChecked() (common/comparisonroundtrip.h), which holds the types to
// every byte; this test checks the fields themselves and what the reader does
// with keys it does not know or values of another type.
#include "compare/comparison.h"
#include "compare/comparisonreader.h"
#include "compare/comparisontypes.h"
#include "compare/comparisonwriter.h"
#include "compare/sweepcompare.h"

#include <QTest>

using namespace ks;

namespace {

RunFile fixture()
{
    RunFile file;
    QString error;
    if (!readRunFile(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl"), &file, &error))
        qFatal("fixture: %s", qPrintable(error));
    return file;
}

} // namespace

class TstComparisonTypes : public QObject {
    Q_OBJECT
private slots:
    void fieldsMatchTheJson()
    {
        QString error;
        CompareOptions options;
        options.resamples = 200;
        const nlohmann::json json = comparisonAssembly(fixture(), options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const Comparison typed = comparisonFromJson(json);
        QCOMPARE(typed.size(), json.size());
        int stats = 0;
        for (std::size_t a = 0; a < typed.size(); ++a) {
            const ComparedArm& arm = typed[a];
            QCOMPARE(arm.arm.toStdString(), json[a]["arm"].get<std::string>());
            QCOMPARE(arm.baseline.toStdString(), json[a]["baseline"].get<std::string>());
            QVERIFY(arm.baselineConfig());
            QCOMPARE(arm.configs.size(), json[a]["configs"].size());
            for (std::size_t c = 0; c < arm.configs.size(); ++c) {
                const ComparedConfig& config = arm.configs[c];
                const nlohmann::json& j = json[a]["configs"][c];
                QCOMPARE(config.requests, j["requests"].get<qint64>());
                QCOMPARE(config.reqPerS, j["req_per_s"].get<double>());
                QVERIFY(config.runToRun);
                QCOMPARE(config.runToRun->method.toStdString(), j["run_to_run"]["method"].get<std::string>());
                QCOMPARE(config.ratioCiMethod, config.runToRun->method);
                for (LatencyMetric m : kLatencyMetrics)
                    for (LatencyStat s : kLatencyStats) {
                        const char* key = latencyKey(m);
                        const char* stat = statKey(s);
                        const ComparedStat& cell = config.stat(m, s);
                        QCOMPARE(config.value(m, s).value(), j[key][stat].get<double>());
                        QCOMPARE(cell.ratio.value(), j["ratio"][key][stat].get<double>());
                        QCOMPARE(cell.ratioCi->low, j["ratio_ci95"][key][stat][0].get<double>());
                        QCOMPARE(cell.ratioCi->high, j["ratio_ci95"][key][stat][1].get<double>());
                        QCOMPARE(cell.ci->low, j["ci95"][key][stat][0].get<double>());
                        QCOMPARE(cell.significant.value(), j["significant"][key][stat].get<bool>());
                        QCOMPARE(cell.withinRunSignificant.has_value(), j.contains("within_run_significant"));
                        ++stats;
                    }
                if (&config != arm.baselineConfig()) {
                    QVERIFY(config.why);
                    QCOMPARE(config.why->kind.toStdString(), j["why"]["kind"].get<std::string>());
                }
            }
        }
        QVERIFY(stats >= 24);
        QCOMPARE(comparisonToJson(typed).dump(), json.dump());
    }

    // A key from a newer version, or a named key of another type, stays as it was
    // written; a wrong-typed number is still read where it can be.
    void unknownAndWrongTypedKeysSurvive()
    {
        QString error;
        CompareOptions options;
        options.resamples = 0;
        nlohmann::json json = comparisonAssembly(fixture(), options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        nlohmann::json& config = json[0]["configs"][1];
        config["errors"] = 3.0; // a double where an integer belongs
        config["max_waiting"] = 7; // an integer where a double belongs
        config["from_the_future"] = { { "x", 1 } };
        config["ci95"] = "not a grid";
        config["run_to_run"]["looks"] = 4; // a key run_to_run does not name
        json[0]["added_later"] = true;
        json[0]["gentle"] = "yes";
        const Comparison typed = comparisonFromJson(json);
        QCOMPARE(comparisonToJson(typed).dump(), json.dump());
        const ComparedConfig& c = typed[0].configs[1];
        QCOMPARE(c.errors, qint64(3));
        QCOMPARE(c.maxWaiting.value(), 7.0);
        QVERIFY(c.rest.contains("errors"));
        QVERIFY(c.rest.contains("max_waiting"));
        QVERIFY(c.rest.contains("from_the_future"));
        QVERIFY(c.rest.contains("ci95"));
        QVERIFY(c.rest.contains("run_to_run"));
        QVERIFY(!c.runToRun);
        QVERIFY(typed[0].rest.contains("added_later"));
        QVERIFY(typed[0].rest.contains("gentle"));
        QVERIFY(!typed[0].gentle);
    }

    // reasoning_tools is typed too: its unknown and wrong-typed keys survive inside it, at both levels.
    void reasoningFiguresKeepWhatTheyDoNotName()
    {
        QString error;
        CompareOptions options;
        options.resamples = 0;
        nlohmann::json json = comparisonAssembly(fixture(), options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        json[0]["configs"][0]["reasoning_tools"] = { { "reasoning_tokens_per_request", 30.0 }, { "ok", 4.0 },
            { "itl_ms_no_tools", { { "p50", 10.0 }, { "p99", 12.0 } } }, { "ratio", nlohmann::json::object() } };
        json[0]["configs"][1]["reasoning_tools"] = { { "reasoning_tokens_per_request", 60 }, // an integer
            { "tool_calls_per_request", 2.0 }, { "ok", 4.0 }, { "newer", "x" },
            { "ratio",
                { { "reasoning_tokens_per_request", 2.0 }, { "itl_ms_no_tools", { { "p50", 2.0 }, { "p90", 1.5 } } },
                    { "later", 1 } } } };
        const Comparison typed = comparisonFromJson(json);
        QCOMPARE(comparisonToJson(typed).dump(), json.dump());
        const ReasoningFigures& a = *typed[0].configs[0].reasoningTools;
        QCOMPARE(*a.reasoningTokens, 30.0);
        QCOMPARE(*a.itlNoTools->p99, 12.0);
        QVERIFY(a.ratio && !a.ratio->reasoningTokens);
        QVERIFY(a.rest.empty());
        const ReasoningFigures& b = *typed[0].configs[1].reasoningTools;
        QCOMPARE(*b.reasoningTokens, 60.0); // read, and kept as written
        QVERIFY(b.rest.contains("reasoning_tokens_per_request"));
        QVERIFY(b.rest.contains("newer"));
        QCOMPARE(*b.toolCalls, 2.0);
        QCOMPARE(*b.ratio->reasoningTokens, 2.0);
        QVERIFY(b.ratio->rest.contains("later"));
        QVERIFY(b.ratio->rest.contains("itl_ms_no_tools")); // p90 is not a ratio compare writes
        json[0]["configs"][1]["reasoning_tools"] = "not an object";
        const Comparison odd = comparisonFromJson(json);
        QVERIFY(!odd[0].configs[1].reasoningTools);
        QVERIFY(odd[0].configs[1].rest.contains("reasoning_tools"));
        QCOMPARE(comparisonToJson(odd).dump(), json.dump());
    }

    void notAnArrayIsAnEmptyComparison()
    {
        QVERIFY(comparisonFromJson(nlohmann::json()).empty());
        QVERIFY(comparisonFromJson(nlohmann::json::object()).empty());
        QCOMPARE(comparisonToJson({}).dump(), std::string("[]"));
    }

    void keysAndEnumsAgree()
    {
        for (LatencyMetric m : kLatencyMetrics)
            QCOMPARE(latencyMetricOf(latencyKey(m)), std::optional(m));
        for (LatencyStat s : kLatencyStats)
            QCOMPARE(latencyStatOf(statKey(s)), std::optional(s));
        QVERIFY(!latencyMetricOf("req_per_s"));
        QVERIFY(!latencyStatOf("p90"));
    }

    // A sweep's entry read back for the knee and the HTML report: points per
    // configuration in order, and why a configuration stopped early.
    void aSweepIsReadBack()
    {
        ComparedArm arm;
        arm.arm = QStringLiteral("knee");
        arm.sweep = { { "over", "concurrency" }, { "configs", { "a", "b" } },
            { "stop", { { "b", "TTFT p99 broke the SLO twice" } } },
            { "points",
                { { "a",
                      { { { "run", "a/knee@4" }, { "step", "concurrency" }, { "value", 4.0 }, { "repeat", 1 },
                          { "achieved_req_per_s", 3.5 }, { "ttft_p50_ms", 40.0 }, { "ttft_p99_ms", nullptr },
                          { "tpot_p50_ms", 20.0 }, { "tpot_p99_ms", 25.0 }, { "meets_slo", true },
                          { "kept_up", true } } } },
                    { "b", nlohmann::json::array() } } } };
        const ComparedSweep sweep = comparedSweepOf(arm);
        QVERIFY(!sweep.overRate);
        QCOMPARE(sweep.configs, QStringList({ QStringLiteral("a"), QStringLiteral("b") }));
        QCOMPARE(sweep.points.at(QStringLiteral("a")).size(), std::size_t(1));
        const SweepPoint& p = sweep.points.at(QStringLiteral("a")).front();
        QCOMPARE(p.run, QStringLiteral("a/knee@4"));
        QCOMPARE(p.value.value(), 4.0);
        QCOMPARE(p.ttftP50, 40.0);
        QCOMPARE(p.ttftP99, -1.0); // null: none
        QVERIFY(sweep.points.at(QStringLiteral("b")).empty());
        QCOMPARE(sweep.stops.at(QStringLiteral("b")), QStringLiteral("TTFT p99 broke the SLO twice"));
        QVERIFY(!sweep.stops.count(QStringLiteral("a")));
        QVERIFY(comparedSweepOf(ComparedArm {}).configs.isEmpty());
    }

    void refusedComparisonIsEmptyWithItsError()
    {
        QString error;
        CompareOptions options;
        options.baseline = QStringLiteral("no-such-config");
        QVERIFY(compareRuns(fixture(), options, &error).empty());
        QVERIFY(error.contains(QLatin1String("no-such-config")));
        error.clear();
        QVERIFY(compareRunsJson(fixture(), options, &error).is_null());
        QVERIFY(!error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstComparisonTypes)
#include "tst_comparisontypes.moc"
