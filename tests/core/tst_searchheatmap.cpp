#include "compare/searchheatmap.h"
#include "compare/searchsofar.h"

#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json probe(int i, int a, int b, int c, double objective, bool feasible = true)
{
    json p = { { "probe", i }, { "point", { { "a", a }, { "b", b }, { "c", c } } },
        { "config", "p" + std::to_string(i) }, { "objective", feasible ? json(objective) : json(nullptr) },
        { "ci95", feasible ? json::array({ objective - 1, objective + 1 }) : json(nullptr) },
        { "feasible", feasible } };
    if (!feasible)
        p["why"] = "no completions";
    return p;
}

// A three-knob search line as the runner writes it (docs/formats.md, "Search over several knobs").
json threeKnobs()
{
    const json knob = { { "min", 1 }, { "max", 64 }, { "scale", "log2" }, { "integer", true }, { "cheaper", "lower" } };
    json knobs = json::array();
    for (const char* name : { "a", "b", "c" }) {
        json k = knob;
        k["name"] = name;
        knobs.push_back(k);
    }
    knobs[2]["scale"] = "linear";
    return { { "type", "search" }, { "knobs", knobs }, { "arm", "stress" }, { "metric", "goodput_req_per_s" },
        { "minimize", false }, { "stop", "budget" }, { "best", { { "a", 8 }, { "b", 4 }, { "c", 2 } } },
        { "objective", 19.0 }, { "ci95", { 18, 20 } },
        { "top",
            { { "point", { { "a", 16 }, { "b", 4 }, { "c", 2 } } }, { "objective", 19.5 },
                { "ci95", { 18.5, 20.5 } } } },
        { "plateau", json::array({ { { "a", 8 }, { "b", 4 }, { "c", 2 } }, { { "a", 16 }, { "b", 4 }, { "c", 2 } } }) },
        { "probes",
            json::array({ probe(0, 8, 4, 2, 19), probe(1, 16, 4, 2, 19.5), probe(2, 32, 8, 2, 3, false),
                probe(3, 16, 4, 5, 12) }) } };
}

} // namespace

class TestSearchHeatmap : public QObject {
    Q_OBJECT

private slots:
    void twoOfThreeKnobsTheRestAtTheRecommendation()
    {
        QString error;
        const auto map = searchHeatmap(threeKnobs(), QStringLiteral("a"), QStringLiteral("b"), &error);
        QVERIFY2(map, qPrintable(error));
        QCOMPARE(map->xKnob, QStringLiteral("a"));
        QVERIFY(map->xLog2 && map->yLog2);
        QCOMPARE(map->xMax, 64.0);
        QCOMPARE(map->fixed, QStringList { QStringLiteral("c = 2") });
        QCOMPARE(map->leftOut, std::size_t(1)); // probe 3 ran at c = 5
        QCOMPARE(map->probes.size(), std::size_t(3));
        QVERIFY(map->probes[0].recommended && map->probes[0].plateau && !map->probes[0].top);
        QVERIFY(map->probes[1].top && map->probes[1].plateau);
        QVERIFY(!map->probes[2].feasible && !map->probes[2].objective);
        QCOMPARE(map->probes[2].why, QStringLiteral("no completions"));
        QCOMPARE(map->probes[2].x, 32.0);
        QCOMPARE(map->probes[2].y, 8.0);
    }

    void defaultsToTheFirstTwo()
    {
        QString error;
        const auto map = searchHeatmap(threeKnobs(), {}, {}, &error);
        QVERIFY(map);
        QCOMPARE(map->yKnob, QStringLiteral("b"));
        QVERIFY(!searchHeatmap(threeKnobs(), QStringLiteral("a"), QStringLiteral("c"), &error)->yLog2);
    }

    void errorsSayWhy()
    {
        QString error;
        QVERIFY(!searchHeatmap(threeKnobs(), QStringLiteral("a"), QStringLiteral("z"), &error));
        QVERIFY(error.contains(QStringLiteral("\"z\" is not a knob of the search")));
        QVERIFY(!searchHeatmap(threeKnobs(), QStringLiteral("a"), QStringLiteral("a"), &error));
        QVERIFY(error.contains(QStringLiteral("two different knobs")));
        const json one = { { "knob", "max_num_seqs" }, { "probes", json::array() } };
        QVERIFY(!searchHeatmap(one, {}, {}, &error));
        QVERIFY(error.contains(QStringLiteral("knob:max_num_seqs")));
        QVERIFY(!searchHeatmap(nullptr, {}, {}, &error));
        QCOMPARE(searchKnobNames(threeKnobs()),
            (QStringList { QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c") }));
    }

    void soFarTakesTheSpecsKnobsAndTheBestProbeInTheObjectivesDirection()
    {
        const json knobs = { { "b", { { "min", 1 }, { "max", 64 } } }, { "a", { { "min", 1 }, { "max", 64 } } },
            { "c", { { "min", 1 }, { "max", 8 }, { "scale", "log2" } } } };
        const json experiment = { { "type", "experiment" },
            { "spec", { { "name", "grid" }, { "search", { { "knobs", knobs }, { "objective", "ttft_ms.p99" } } } } } };
        SearchSoFar soFar;
        QVERIFY(!soFar.start({ { "type", "experiment" }, { "spec", { { "search", { { "knob", "a" } } } } } }));
        QVERIFY(!soFar.active());
        QVERIFY(soFar.start(experiment));
        QCOMPARE(soFar.experimentName(), QStringLiteral("grid"));
        QCOMPARE(searchKnobNames(soFar.line()),
            (QStringList { QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c") }));
        QCOMPARE(soFar.line()["minimize"].get<bool>(), true); // a latency objective
        QVERIFY(soFar.line()["top"].is_null());
        // An infeasible probe is never the top; the lowest latency is.
        for (const json& p :
            { probe(0, 8, 4, 2, 40), probe(1, 16, 4, 2, 1, false), probe(2, 16, 8, 2, 30), probe(3, 32, 8, 2, 55) }) {
            json line = p;
            line["type"] = "search_probe";
            soFar.addProbe(line);
        }
        QCOMPARE(soFar.line()["probes"].size(), std::size_t(4));
        QVERIFY(!soFar.line()["probes"][0].contains("type"));
        QCOMPARE(soFar.line()["top"]["objective"].get<double>(), 30.0);
        QCOMPARE(soFar.line()["top"]["point"]["b"].get<int>(), 8);
        QVERIFY(soFar.line()["best"].is_null()); // the search's own to say
        QCOMPARE(soFar.stopReason(), QStringLiteral("?"));
        // The closing line of a search over other knobs is not this one's.
        json other = threeKnobs();
        other["knobs"][0]["name"] = "z";
        QVERIFY(!soFar.finish(other));
        QVERIFY(!soFar.ended());
        QVERIFY(soFar.finish(threeKnobs()));
        QVERIFY(soFar.ended());
        QCOMPARE(soFar.stopReason(), QStringLiteral("budget"));
        soFar.addProbe(probe(9, 1, 1, 1, 1)); // after the end: not counted
        QCOMPARE(soFar.line()["probes"].size(), threeKnobs()["probes"].size());
        soFar.clear();
        QVERIFY(!soFar.active());
    }
};

QTEST_GUILESS_MAIN(TestSearchHeatmap)
#include "tst_searchheatmap.moc"
