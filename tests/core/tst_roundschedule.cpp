// The order of an experiment's visits (RoundSchedule, and the runner's cursor
// over it, VisitOrder) and an arm's runs in one round (ArmPlan).
#include "experiment/armplan.h"
#include "experiment/roundschedule.h"
#include "experiment/visitorder.h"

#include <QTest>

#include <algorithm>
#include <set>

using namespace ks;
using nlohmann::json;

namespace {

json docWith(int configs, std::initializer_list<json> armList)
{
    json arms = json::array();
    for (const json& arm : armList)
        arms.push_back(arm);
    json list = json::array();
    for (int i = 0; i < configs; ++i)
        list.push_back({ { "label", "c" + std::to_string(i) }, { "model", "m" } });
    return { { "name", "t" }, { "target", { { "base_url", "http://127.0.0.1:1" } } }, { "configs", list },
        { "arms", arms } };
}

ExperimentSpec parse(const json& doc)
{
    auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    if (auto* errors = std::get_if<std::vector<SpecError>>(&parsed)) {
        qWarning() << errors->front().toString();
        return {};
    }
    return std::get<ExperimentSpec>(std::move(parsed));
}

json plain(const char* name, int repeats = 0)
{
    json arm = { { "name", name }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 4 } };
    if (repeats > 0)
        arm["repeats"] = repeats;
    return arm;
}

std::vector<Visit> visitsOf(const RoundSchedule& schedule, std::size_t configs)
{
    std::vector<Visit> out;
    for (std::size_t i = 0;; ++i) {
        const auto v = schedule.at(i, configs);
        if (!v)
            return out;
        out.push_back(*v);
    }
}

} // namespace

class TestRoundSchedule : public QObject {
    Q_OBJECT
private slots:
    void blockedVisitsEachConfigurationOnceWithAllItsRepeats()
    {
        json doc = docWith(3, { plain("a", 3) });
        doc["order"] = "blocked";
        const ExperimentSpec spec = parse(doc);
        const RoundSchedule schedule(spec);
        QVERIFY(!schedule.interleaved());
        const std::vector<Visit> visits = visitsOf(schedule, 3);
        QCOMPARE(visits.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(visits[i].config, i);
            QCOMPARE(visits[i].round, 0);
        }
        QCOMPARE(schedule.runsBefore(2), 6);
        QCOMPARE(schedule.totalRuns(3), 9);
        QVERIFY(!schedule.endsRound(0));
    }

    void armsThatRunOnceAreBlockedWhateverTheOrder()
    {
        const RoundSchedule schedule(parse(docWith(2, { plain("a") })));
        QVERIFY(!schedule.interleaved());
        QCOMPARE(visitsOf(schedule, 2).size(), std::size_t(2));
    }

    void interleavedRoundsVisitEveryConfigurationOnceARound()
    {
        json doc = docWith(4, { plain("a"), plain("b", 2) });
        doc["repeats"] = 3; // a: 3, b: its own 2
        const ExperimentSpec spec = parse(doc);
        const RoundSchedule schedule(spec);
        QVERIFY(schedule.interleaved());
        QCOMPARE(schedule.rounds(), 3);
        const std::vector<Visit> visits = visitsOf(schedule, 4);
        QCOMPARE(visits.size(), std::size_t(12));
        bool shuffled = false;
        for (int r = 1; r <= 3; ++r) {
            std::set<std::size_t> configs;
            for (std::size_t k = 0; k < 4; ++k) {
                const Visit& v = visits[std::size_t(r - 1) * 4 + k];
                QCOMPARE(v.round, r);
                configs.insert(v.config);
                shuffled = shuffled || v.config != k;
            }
            QCOMPARE(configs.size(), std::size_t(4)); // each once
            QVERIFY(schedule.endsRound(std::size_t(r) * 4 - 1));
            QVERIFY(!schedule.endsRound(std::size_t(r) * 4 - 2));
        }
        QVERIFY(shuffled);
        // Round 1 runs both arms, round 2 both (b has 2 repeats), round 3 only a.
        QCOMPARE(schedule.runsBefore(4), 8);
        QCOMPARE(schedule.runsBefore(8), 16);
        QCOMPARE(schedule.totalRuns(4), 20);

        // The same seed gives the same order; another seed another one.
        const std::vector<Visit> again = visitsOf(RoundSchedule(spec), 4);
        QVERIFY(std::equal(visits.begin(), visits.end(), again.begin(),
            [](const Visit& x, const Visit& y) { return x.config == y.config && x.round == y.round; }));
        bool differs = false;
        for (int seed = 2; seed < 12 && !differs; ++seed) {
            doc["order_seed"] = seed;
            const std::vector<Visit> other = visitsOf(RoundSchedule(parse(doc)), 4);
            for (std::size_t i = 0; i < other.size(); ++i)
                differs = differs || other[i].config != visits[i].config;
        }
        QVERIFY(differs);
    }

    void endingAfterARoundDropsTheLaterVisits()
    {
        json doc = docWith(2, { plain("a") });
        doc["repeats"] = { { "min", 2 }, { "max", 5 }, { "until", { { "ratios", { "ttft_ms.p99" } } } } };
        RoundSchedule schedule(parse(doc));
        QCOMPARE(schedule.rounds(), 5);
        QCOMPARE(schedule.totalRuns(2), 10);
        schedule.endAfterRound(2);
        QCOMPARE(visitsOf(schedule, 2).size(), std::size_t(4));
        QVERIFY(schedule.endsRound(3));
        QCOMPARE(schedule.totalRuns(2), 4);
    }

    // The runner's cursor: a round ends at its last visit, a failed configuration
    // stays failed, and a stopped experiment's round is said once.
    void visitOrderEndsRoundsAndSaysAStoppedOneOnce()
    {
        json doc = docWith(2, { plain("a") });
        doc["repeats"] = { { "min", 2 }, { "max", 3 }, { "until", { { "ratios", { "ttft_ms.p99" } } } } };
        const ExperimentSpec spec = parse(doc);
        VisitOrder order(spec, QStringLiteral("/nonexistent/runs.jsonl"));
        QVERIFY(!order.stopped()); // no round ended yet: nothing to say
        QVERIFY(order.current(2));
        QVERIFY(!order.advance(2)); // the first visit of round 1
        QCOMPARE(order.runsBefore(), 1);
        QCOMPARE(order.advance(2).value_or(0), 1); // the last visit of round 1
        QVERIFY(order.roundEnded(1)); // repeats until decided: for the judge
        QVERIFY(!order.judge(1)); // before the first look (min 2)
        order.markFailed(1);
        QVERIFY(order.failed(1));
        QVERIFY(!order.failed(0));
        QVERIFY(!order.failed(7));
        const std::optional<RoundDecision> stopped = order.stopped();
        QVERIFY(stopped);
        QCOMPARE(stopped->round, 1);
        QCOMPARE(stopped->stop, QStringLiteral("stopped"));
        QCOMPARE(stopped->max, 3);
        QVERIFY(!order.stopped()); // once
        QVERIFY(!order.roundEnded(2)); // the rounds have ended
        QCOMPARE(order.totalRuns(2), 6);

        VisitOrder blocked(parse(docWith(2, { plain("a", 2) })), QString());
        QVERIFY(!blocked.roundEnded(1)); // no judge
        QVERIFY(!blocked.stopped());
    }

    void sweepsAndProbesRunInTheFirstVisit()
    {
        json doc = docWith(2,
            { plain("a", 2),
                { { "name", "knee" }, { "mode", "sweep" }, { "over", "concurrency" }, { "values", { 1, 2, 4 } },
                    { "requests", 4 } } });
        doc["probes"] = { { "set", "builtin:quality-50" } };
        const ExperimentSpec spec = parse(doc);
        QCOMPARE(ArmPlan::runsInRound(spec, 1), std::size_t(1 + 3 + 1));
        QCOMPARE(ArmPlan::runsInRound(spec, 2), std::size_t(1));
        QCOMPARE(ArmPlan::runsInRound(spec, 0), ArmPlan::runsPerConfig(spec));

        ArmPlan sweepLater(spec, spec.configs[0], spec.arms[1], 2);
        QVERIFY(!sweepLater.next());
        ArmPlan sweepFirst(spec, spec.configs[0], spec.arms[1], 1);
        int steps = 0;
        while (auto step = sweepFirst.next()) {
            QVERIFY(!step->runFields.contains("round"));
            json s = { { "ok", 4 }, { "offered_req_per_s", 1.0 }, { "completion_req_per_s", 1.0 } };
            sweepFirst.stepFinished(s);
            ++steps;
        }
        QCOMPARE(steps, 3);
    }

    void aPlainArmRunsItsRoundsRepeatAlone()
    {
        json doc = docWith(2, { plain("a", 3) });
        const ExperimentSpec spec = parse(doc);
        QCOMPARE(spec.arms.size(), std::size_t(1));
        ArmPlan blocked(spec, spec.configs[1], spec.arms[0], 0);
        std::vector<quint64> seeds;
        while (auto step = blocked.next()) {
            seeds.push_back(step->load.seed);
            QVERIFY(!step->runFields.contains("round"));
            json s = json::object();
            blocked.stepFinished(s);
        }
        QCOMPARE(seeds.size(), std::size_t(3));
        for (int r = 1; r <= 3; ++r) {
            ArmPlan plan(spec, spec.configs[1], spec.arms[0], r);
            const auto step = plan.next();
            QVERIFY(step);
            QCOMPARE(step->load.runLabel, r == 1 ? QStringLiteral("c1/a") : QStringLiteral("c1/a#%1").arg(r));
            QCOMPARE(step->runFields["repeat"].get<int>(), r);
            QCOMPARE(step->runFields["round"].get<int>(), r);
            QCOMPARE(step->load.seed, seeds[std::size_t(r - 1)]); // the prompts of repeat r, blocked or not
            json s = json::object();
            plan.stepFinished(s);
            QCOMPARE(s["round"].get<int>(), r);
            QCOMPARE(s["repeat"].get<int>(), r);
            QVERIFY(!plan.next());
        }
        ArmPlan past(spec, spec.configs[1], spec.arms[0], 4);
        QVERIFY(!past.next()); // fewer repeats than the round: skipped in that visit
    }
};

QTEST_GUILESS_MAIN(TestRoundSchedule)
#include "tst_roundschedule.moc"
