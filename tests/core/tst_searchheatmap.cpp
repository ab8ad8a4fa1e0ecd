#include "compare/searchheatmap.h"

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
};

QTEST_GUILESS_MAIN(TestSearchHeatmap)
#include "tst_searchheatmap.moc"
