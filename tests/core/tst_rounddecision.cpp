// When repeats that run until decided stop: hand-made comparisons (compareRuns' shape).
#include "compare/comparisonreader.h"
#include "compare/rounddecision.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace ks;
using nlohmann::json;

namespace {

// One arm's entry with a baseline and one other configuration whose ttft_ms.p99 ratio is `value` in [lo, hi].
json armWith(const char* arm, double value, double lo, double hi)
{
    const json other = { { "config", "fast" }, { "ratio", { { "ttft_ms", { { "p99", value } } } } },
        { "ratio_ci95", { { "ttft_ms", { { "p99", { lo, hi } } } }, { "method", "rounds" } } } };
    const json base = { { "config", "base" }, { "ratio", { { "ttft_ms", { { "p99", 1.0 } } } } },
        { "ratio_ci95", json::object() } };
    return { { "arm", arm }, { "baseline", "base" }, { "configs", { base, other } } };
}

RoundRule ruleFor(std::initializer_list<const char*> ratios, double halfWidth = 0.05)
{
    RoundRule rule;
    rule.min = 2;
    rule.max = 6;
    rule.halfWidth = halfWidth;
    rule.arms = { QStringLiteral("stress"), QStringLiteral("light") };
    for (const char* r : ratios) {
        const QString text = QString::fromLatin1(r);
        const qsizetype colon = text.indexOf(QLatin1Char(':'));
        rule.ratios.push_back({ colon < 0 ? QString() : text.left(colon), text.mid(colon + 1) });
    }
    return rule;
}

GateCondition condition(const char* text)
{
    return std::get<GateCondition>(parseGateCondition(QString::fromLatin1(text)));
}

} // namespace

class TestRoundDecision : public QObject {
    Q_OBJECT
private slots:
    void decidedByWidth()
    {
        // [0.97, 1.03] around 1.0: a half-width of about 3 % in logs, within 5 %.
        const json compare = json::array({ armWith("stress", 1.0, 0.97, 1.03), armWith("light", 1.1, 1.06, 1.14) });
        const RoundDecision d = decideRound(comparisonFromJson(compare), ruleFor({ "ttft_ms.p99" }), 3, 0.99);
        QCOMPARE(d.ratios.size(), std::size_t(2)); // every arm the rounds repeat, each non-baseline configuration
        QCOMPARE(d.ratios[0].arm, QStringLiteral("stress"));
        QCOMPARE(d.ratios[0].config, QStringLiteral("fast"));
        QCOMPARE(*d.ratios[0].value, 1.0);
        QCOMPARE(d.ratios[0].ci95->first, 0.97);
        QVERIFY(d.ratios[0].decided && d.ratios[1].decided);
        QVERIFY(d.decided);
        QCOMPARE(d.stop, QStringLiteral("decided"));
        QCOMPARE(d.confidence, 0.99);
        QVERIFY2(roundSentence(d).startsWith(QStringLiteral("decided after round 3: every chosen ratio's interval is "
                                                            "narrower than ±5 % or clear of the gate")),
            qPrintable(roundSentence(d)));
    }

    void tooWideIsUndecidedUntilTheBudget()
    {
        const json compare = json::array({ armWith("stress", 1.0, 0.90, 1.11), armWith("light", 1.0, 0.99, 1.01) });
        const RoundRule rule = ruleFor({ "ttft_ms.p99" });
        const RoundDecision mid = decideRound(comparisonFromJson(compare), rule, 3, 0.99);
        QVERIFY(!mid.ratios[0].decided);
        QVERIFY(mid.ratios[1].decided);
        QVERIFY(!mid.decided);
        QVERIFY(mid.stop.isEmpty()); // another round
        QVERIFY2(roundSentence(mid).contains(QStringLiteral("1 of 2 chosen ratios decided after round 3")),
            qPrintable(roundSentence(mid)));
        const RoundDecision last = decideRound(comparisonFromJson(compare), rule, 6, 0.99);
        QCOMPARE(last.stop, QStringLiteral("budget"));
        QCOMPARE(roundSentence(last),
            QStringLiteral("budget of 6 rounds spent: ttft_ms.p99 of stress (fast) still undecided"));
        // A looser half-width decides the same interval: log(1.11/0.90)/2 is about 10.5 %.
        QVERIFY(decideRound(comparisonFromJson(compare), ruleFor({ "ttft_ms.p99" }, 0.12), 3, 0.99).decided);
    }

    void decidedByTheGateThreshold()
    {
        // Wide, but wholly above 1.10x: the gate's verdict cannot change with more rounds.
        const json compare = json::array({ armWith("stress", 1.3, 1.15, 1.5) });
        RoundRule rule = ruleFor({});
        rule.arms = { QStringLiteral("stress") };
        rule.failIf = { condition("ttft_ms.p99 > 1.10x") };
        RoundDecision d = decideRound(comparisonFromJson(compare), rule, 2, 0.99);
        QCOMPARE(d.ratios.size(), std::size_t(1));
        QCOMPARE(d.ratios[0].ratio, QStringLiteral("ttft_ms.p99"));
        QVERIFY(d.decided);
        // Wholly below is decided too; straddling it is not.
        QVERIFY(
            decideRound(comparisonFromJson(json::array({ armWith("stress", 0.9, 0.7, 1.05) })), rule, 2, 0.99).decided);
        QVERIFY(
            !decideRound(comparisonFromJson(json::array({ armWith("stress", 1.1, 0.9, 1.3) })), rule, 2, 0.99).decided);
        // Every threshold on the ratio must be clear.
        rule.failIf.push_back(condition("stress:ttft_ms.p99 > 1.3x"));
        QVERIFY(!decideRound(comparisonFromJson(compare), rule, 2, 0.99).decided);
        // A condition on another arm does not apply here.
        rule.failIf.back() = condition("light:ttft_ms.p99 > 1.3x");
        rule.arms = { QStringLiteral("stress") };
        d = decideRound(comparisonFromJson(compare), rule, 2, 0.99);
        QCOMPARE(d.ratios.size(), std::size_t(2)); // stress from the first condition, light from the second
        QVERIFY(d.ratios[0].decided);
        QVERIFY(!d.ratios[1].decided); // light is not in the comparison
        QVERIFY(d.ratios[1].config.isEmpty());
    }

    void missingOrNotFiniteIsUndecided()
    {
        json compare = json::array({ armWith("stress", 1.0, 0.99, 1.01) });
        compare[0]["configs"][1]["ratio_ci95"]["ttft_ms"]["p99"] = { 0.99, std::numeric_limits<double>::infinity() };
        RoundRule rule = ruleFor({ "stress:ttft_ms.p99" });
        QVERIFY(!decideRound(comparisonFromJson(compare), rule, 2, 0.99).decided);
        compare[0]["configs"][1]["ratio_ci95"]["ttft_ms"].erase("p99");
        QVERIFY(!decideRound(comparisonFromJson(compare), rule, 2, 0.99).decided);
        const RoundDecision nothing = decideRound(comparisonFromJson(json::array()), rule, 2, 0.99);
        QCOMPARE(nothing.ratios.size(), std::size_t(1));
        QVERIFY(!nothing.decided);
        QVERIFY2(roundSentence(nothing).contains(QStringLiteral("ttft_ms.p99 of stress (no comparison)")),
            qPrintable(roundSentence(nothing)));
    }

    void theLineReadsBackAsWritten()
    {
        const json compare = json::array({ armWith("stress", 1.02, 1.0, 1.04) });
        RoundDecision d = decideRound(comparisonFromJson(compare), ruleFor({ "stress:ttft_ms.p99" }), 4, 0.9875);
        d.problem = QStringLiteral("something");
        const json line = roundLine(d);
        QCOMPARE(line["type"].get<std::string>(), std::string("round"));
        QCOMPARE(line["round"].get<int>(), 4);
        QCOMPARE(line["stop"].get<std::string>(), std::string("decided"));
        QVERIFY(line["ratios"][0]["ci95"] == json({ 1.0, 1.04 }));
        const RoundDecision back = roundDecisionFromLine(line);
        QCOMPARE(back.round, 4);
        QCOMPARE(back.decided, true);
        QCOMPARE(back.stop, QStringLiteral("decided"));
        QCOMPARE(back.max, 6);
        QCOMPARE(back.halfWidth, 0.05);
        QCOMPARE(back.confidence, 0.9875);
        QCOMPARE(back.problem, QStringLiteral("something"));
        QCOMPARE(back.ratios.size(), std::size_t(1));
        QCOMPARE(back.ratios[0].config, QStringLiteral("fast"));
        QCOMPARE(*back.ratios[0].value, 1.02);
        QCOMPARE(back.ratios[0].ci95->second, 1.04);
        QVERIFY(back.ratios[0].decided);
        json open = roundLine(decideRound(comparisonFromJson(json::array({ armWith("stress", 1.0, 0.5, 2.0) })),
            ruleFor({ "stress:ttft_ms.p99" }), 3, 0.99));
        QVERIFY(open["stop"].is_null());
        QVERIFY(roundDecisionFromLine(open).stop.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRoundDecision)
#include "tst_rounddecision.moc"
