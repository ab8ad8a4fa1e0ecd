#include "experiment/armplan.h"
#include "metrics/repeatstats.h"
#include "metrics/sweepcapacity.h"

#include <QSet>
#include <QTest>

#include <cmath>

using namespace ks;
using nlohmann::json;

namespace {

ExperimentSpec specWith(const json& arm)
{
    const json doc = { { "name", "t" }, { "target", { { "base_url", "http://127.0.0.1:1" } } },
        { "configs", json::array({ { { "label", "c" }, { "model", "m" } } }) }, { "arms", json::array({ arm }) },
        { "slo", { { "ttft_ms", 500 }, { "tpot_ms", 50 } } } };
    auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    if (auto* errors = std::get_if<std::vector<SpecError>>(&parsed)) {
        qWarning() << errors->front().toString();
        return {};
    }
    return std::get<ExperimentSpec>(std::move(parsed));
}

// A step summary with the fields the plan reads.
json summary(double ttftP99, double offered, double achieved, double tpotP99 = 30)
{
    return { { "ok", 100 }, { "ttft_ms", { { "p50", ttftP99 / 2 }, { "p99", ttftP99 } } },
        { "tpot_ms", { { "p50", tpotP99 / 2 }, { "p99", tpotP99 } } }, { "offered_req_per_s", offered },
        { "completion_req_per_s", achieved }, { "req_per_s", achieved * 0.9 } };
}

QStringList list(std::initializer_list<const char*> items)
{
    QStringList out;
    for (const char* item : items)
        out << QString::fromUtf8(item);
    return out;
}

} // namespace

class TestArmPlan : public QObject {
    Q_OBJECT
private slots:
    void plainArmRunsOnceUnchanged()
    {
        const ExperimentSpec spec
            = specWith({ { "name", "fixed" }, { "mode", "concurrency" }, { "concurrency", 4 }, { "requests", 10 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        auto step = plan.next();
        QVERIFY(step);
        QCOMPARE(step->armName, QStringLiteral("fixed"));
        QCOMPARE(step->load.runLabel, QStringLiteral("c/fixed"));
        QCOMPARE(step->load.concurrency, 4);
        QCOMPARE(step->load.seed, spec.seed); // a plain arm's prompts are what they were before plans
        QVERIFY(step->runFields.empty());
        json s = summary(100, 0, 0);
        plan.stepFinished(s);
        QVERIFY(!s.contains("sweep"));
        QVERIFY(!s.contains("repeat"));
        QVERIFY(!plan.next());
        QCOMPARE(ArmPlan::estimatedRuns(spec.arms[0]), 1);
    }

    void repeatsAreNamedAndSeededApart()
    {
        const ExperimentSpec spec = specWith({ { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 64 },
            { "requests", 10 }, { "repeats", 3 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        QStringList labels;
        QSet<quint64> seeds;
        while (auto step = plan.next()) {
            labels << step->load.runLabel;
            seeds << step->load.seed;
            QCOMPARE(step->armName, QStringLiteral("stress")); // repeats share the arm: compare pools them
            QCOMPARE(step->runFields["repeat"].get<int>(), int(labels.size()));
            json s = summary(100, 0, 0);
            plan.stepFinished(s);
            QCOMPARE(s["repeat"].get<int>(), int(labels.size()));
        }
        QCOMPARE(labels, list({ "c/stress", "c/stress#2", "c/stress#3" }));
        QCOMPARE(seeds.size(), 3); // distinct prompts, or the prefix cache would favour later repeats
        QCOMPARE(ArmPlan::estimatedRuns(spec.arms[0]), 3);
    }

    void explicitRateSweepRunsEveryValueWhileTheSloHolds()
    {
        const ExperimentSpec spec = specWith({ { "name", "knee" }, { "mode", "sweep" }, { "over", "rate" },
            { "values", { 1, 2, 4, 8, 16 } }, { "duration_s", 20 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        QStringList names;
        while (auto step = plan.next()) {
            names << step->armName;
            QCOMPARE(step->load.mode, LoadSpec::Mode::Rate);
            const double rate = step->load.rate;
            QCOMPARE(step->runFields["sweep"]["value"].get<double>(), rate);
            QCOMPARE(step->runFields["sweep"]["arm"].get<std::string>(), std::string("knee"));
            QCOMPARE(step->runFields["sweep"]["over"].get<std::string>(), std::string("rate"));
            json s = summary(200, rate, rate * 0.97);
            plan.stepFinished(s);
            QVERIFY(!s["sweep"].contains("stop"));
        }
        QCOMPARE(names, list({ "knee@1", "knee@2", "knee@4", "knee@8", "knee@16" }));
        QVERIFY(plan.stopReason().isEmpty());
    }

    void stopsAfterTwoConsecutiveSloBreaks()
    {
        const ExperimentSpec spec = specWith({ { "name", "knee" }, { "mode", "sweep" }, { "over", "rate" },
            { "values", { 1, 2, 4, 8, 16, 32 } }, { "duration_s", 20 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        // 2 breaks the SLO, 4 meets it again (one break is not a trend), 8 and 16 break it.
        const QHash<double, double> ttftP99 { { 1, 100 }, { 2, 600 }, { 4, 450 }, { 8, 700 }, { 16, 900 }, { 32, 1 } };
        QStringList names;
        json last;
        while (auto step = plan.next()) {
            names << step->armName;
            last = summary(ttftP99.value(step->load.rate), step->load.rate, step->load.rate);
            plan.stepFinished(last);
        }
        QCOMPARE(names, list({ "knee@1", "knee@2", "knee@4", "knee@8", "knee@16" }));
        QVERIFY(plan.stopReason().contains(QStringLiteral("two steps in a row")));
        QVERIFY(plan.stopReason().contains(QStringLiteral("TTFT p99 900 ms > 500 ms")));
        QCOMPARE(QString::fromStdString(last["sweep"]["stop"].get<std::string>()), plan.stopReason());
    }

    void stopsAtOnceWhenTheServerFallsBehind()
    {
        const ExperimentSpec spec = specWith({ { "name", "knee" }, { "mode", "sweep" }, { "over", "rate" },
            { "values", { 1, 2, 4 } }, { "duration_s", 20 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        auto step = plan.next();
        json s = summary(100, 1.0, 0.95);
        plan.stepFinished(s);
        step = plan.next();
        s = summary(100, 2.1, 1.85); // 88 % of what the schedule offered
        plan.stepFinished(s);
        QVERIFY(!plan.next());
        QVERIFY2(plan.stopReason().contains(QStringLiteral("below 90 % of the offered 2.10")),
            qPrintable(plan.stopReason()));
    }

    void concurrencySweepSetsTheClosedLoop()
    {
        const ExperimentSpec spec = specWith({ { "name", "ladder" }, { "mode", "sweep" }, { "over", "concurrency" },
            { "values", { 1, 4, 16 } }, { "requests", 50 }, { "repeats", 2 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        QStringList labels;
        while (auto step = plan.next()) {
            QCOMPARE(step->load.mode, LoadSpec::Mode::Concurrency);
            labels << QStringLiteral("%1:%2").arg(step->load.runLabel).arg(step->load.concurrency);
            json s = summary(100, 0, 0); // a closed loop has no offered rate to keep up with
            plan.stepFinished(s);
        }
        QCOMPARE(labels,
            list({ "c/ladder@1:1", "c/ladder@1#2:1", "c/ladder@4:4", "c/ladder@4#2:4", "c/ladder@16:16",
                "c/ladder@16#2:16" }));
        QCOMPARE(ArmPlan::estimatedRuns(spec.arms[0]), 6);
    }

    void autoSweepSpacesRatesBetweenSynchronousAndThroughput()
    {
        const ExperimentSpec spec = specWith({ { "name", "auto" }, { "mode", "sweep" }, { "over", "rate" },
            { "auto", true }, { "steps", 4 }, { "duration_s", 20 }, { "max_concurrency", 100 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        auto sync = plan.next();
        QCOMPARE(sync->armName, QStringLiteral("auto@sync"));
        QCOMPARE(sync->load.mode, LoadSpec::Mode::Concurrency);
        QCOMPARE(sync->load.concurrency, 1);
        QVERIFY(sync->runFields["sweep"]["value"].is_null());
        QCOMPARE(sync->runFields["sweep"]["step"].get<std::string>(), std::string("synchronous"));
        json s = summary(100, 0, 1.0);
        plan.stepFinished(s);
        auto ceiling = plan.next();
        QCOMPARE(ceiling->armName, QStringLiteral("auto@max"));
        QCOMPARE(ceiling->load.concurrency, 100);
        s = summary(5000, 0, 9.0); // the ceiling breaks the SLO, as it should: it does not stop the sweep
        plan.stepFinished(s);
        QStringList names;
        while (auto step = plan.next()) {
            names << step->armName;
            QCOMPARE(step->load.mode, LoadSpec::Mode::Rate);
            s = summary(100, step->load.rate, step->load.rate);
            plan.stepFinished(s);
        }
        // GuideLLM's spacing: linspace(sync, throughput, steps + 1) without the synchronous rate.
        QCOMPARE(names, list({ "auto@3", "auto@5", "auto@7", "auto@9" }));
        QCOMPARE(ArmPlan::estimatedRuns(spec.arms[0]), 6);
    }

    void autoSweepWithoutHeadroomStops()
    {
        const ExperimentSpec spec = specWith(
            { { "name", "auto" }, { "mode", "sweep" }, { "over", "rate" }, { "auto", true }, { "duration_s", 20 } });
        ArmPlan plan(spec, spec.configs[0], spec.arms[0]);
        plan.next();
        json s = summary(100, 0, 2.0);
        plan.stepFinished(s);
        plan.next();
        s = summary(100, 0, 1.5);
        plan.stepFinished(s);
        QVERIFY(!plan.next());
        QVERIFY(plan.stopReason().contains(QStringLiteral("not faster than the synchronous")));
    }

    void aTypedSummaryIsJudgedAgainstTheSloItCarries()
    {
        json s = summary(600, 4, 4);
        s["config"] = "c";
        s["sweep"] = { { "arm", "knee" }, { "over", "concurrency" }, { "value", 4 }, { "step", "concurrency" } };
        const std::optional<SweepPoint> free = sweepPoint(runSummaryFromJson(s));
        QVERIFY(free);
        QCOMPARE(free->arm, QStringLiteral("knee"));
        QVERIFY(!free->overRate);
        QVERIFY(free->verdict.meetsSlo); // no SLO in the summary
        s["slo"] = { { "ttft_ms", 500.0 }, { "tpot_ms", 0.0 } };
        const std::optional<SweepPoint> judged = sweepPoint(runSummaryFromJson(s));
        QVERIFY(judged);
        QCOMPARE(summarySlo(runSummaryFromJson(s)).ttftMs, 500.0);
        QVERIFY(!judged->verdict.meetsSlo); // TTFT p99 600 ms > 500 ms
        s.erase("sweep");
        QVERIFY(!sweepPoint(runSummaryFromJson(s)));
    }

    void capacityIsTheHighestPassingValue()
    {
        const Slo slo { 500, 50 };
        std::vector<SweepPoint> points;
        auto add = [&](double value, double ttft, double offered, double achieved, int repeat = 1) {
            json s = summary(ttft, offered, achieved);
            s["config"] = "c";
            s["repeat"] = repeat;
            s["sweep"] = { { "arm", "knee" }, { "over", "rate" }, { "value", value }, { "step", "rate" } };
            points.push_back(*sweepPoint(s, slo));
        };
        add(1, 100, 1, 1);
        add(2, 200, 2, 2);
        add(4, 450, 4, 3.5); // meets the SLO but fell behind: not sustained
        add(8, 900, 8, 8);
        QCOMPARE(sweepCapacity(points), std::optional<double>(2));
        add(2, 600, 2, 2, 2); // a repeat of 2 broke the SLO: 2 is not sustained either
        QCOMPARE(sweepCapacity(points), std::optional<double>(1));
        points.erase(points.begin(), points.begin() + 2);
        QCOMPARE(sweepCapacity(points), std::nullopt);
    }

    void studentQuantilesMatchTables()
    {
        // Two-sided 95 % critical values from any t table.
        QVERIFY(qAbs(studentTQuantile(0.975, 1) - 12.7062) < 1e-3);
        QVERIFY(qAbs(studentTQuantile(0.975, 2) - 4.3027) < 1e-3);
        QVERIFY(qAbs(studentTQuantile(0.975, 10) - 2.2281) < 1e-3);
        QVERIFY(qAbs(studentTQuantile(0.975, 1000) - 1.9623) < 1e-3);
        QVERIFY(qAbs(studentTQuantile(0.025, 5) + 2.5706) < 1e-3);
    }

    void repeatSpreadByHand()
    {
        // 10, 12, 14: mean 12, sd 2, CV 1/6, half-width 4.3027 * 2 / sqrt(3) = 4.968.
        const RepeatSpread s = repeatSpread({ 10, 12, 14 });
        QCOMPARE(s.n, 3);
        QCOMPARE(s.mean, 12.0);
        QVERIFY(qAbs(s.sd - 2.0) < 1e-12);
        QVERIFY(qAbs(s.cv - 1.0 / 6) < 1e-12);
        QVERIFY(s.tCi95);
        QVERIFY(qAbs(s.tCi95->low - (12 - 4.9683)) < 1e-3);
        // Welch: equal variances 4 and n 3 each: se = sqrt(8/3), df = 4, t = 2.7764.
        const auto d = welchDifferenceCi95({ 10, 12, 14 }, { 20, 22, 24 });
        QVERIFY(d);
        QVERIFY(qAbs(d->low - (10 - 2.7764 * std::sqrt(8.0 / 3))) < 1e-3);
        QVERIFY(!welchDifferenceCi95({ 10 }, { 20, 22 }));
    }
};

QTEST_GUILESS_MAIN(TestArmPlan)
#include "tst_armplan.moc"
