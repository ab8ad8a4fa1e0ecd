#include "common/comparisonroundtrip.h"
#include "compare/compareformat.h"
#include "compare/comparison.h"
#include "compare/reasoningfigures.h"

#include <QFile>
#include <QTest>

using namespace ks;

namespace {

// A run whose ok requests each stream `reasoning` reasoning tokens, `answer`
// content tokens, then `toolEvents` tool-call deltas of `toolCalls` calls; the
// gaps before the first tool-call delta are `gapUs`, the tool-call gaps 1 ms.
RunData reasoningRun(const QString& config, int reasoning, int answer, int toolEvents, int toolCalls, int gapUs)
{
    RunData data;
    data.config = config;
    data.arm = QStringLiteral("tools");
    data.run = config + QStringLiteral("/tools");
    data.requests.setRun(data.run);
    for (int i = 0; i < 5; ++i) {
        RequestRecord r;
        r.id = i;
        r.tSchedUs = r.tSendUs = qint64(i) * 100'000;
        r.ttftUs = 20'000;
        const int events = reasoning + answer + toolEvents;
        r.itlUs.assign(std::size_t(events - 1 - toolEvents), gapUs);
        r.itlUs.insert(r.itlUs.end(), std::size_t(toolEvents), 1'000);
        r.e2eUs = r.ttftUs;
        for (std::int32_t gap : r.itlUs)
            r.e2eUs += gap;
        r.outTokens = events;
        r.reasoningTokens = reasoning;
        r.answerTokens = answer;
        r.toolCallEvents = toolEvents;
        r.toolCalls = toolCalls;
        r.ok = true;
        if (i == 4) { // a failed request counts in no figure, nor in the per-request denominator
            r.ok = false;
            r.error = QStringLiteral("http_500");
            r.itlUs.clear();
        }
        data.requests.push_back(r);
    }
    return data;
}

QByteArray golden(const char* name)
{
    QFile file(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/") + QLatin1String(name));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestReasoningFigures : public QObject {
    Q_OBJECT
private slots:
    // Per ok request, and each figure's ratio to the baseline, against hand-computed values.
    void figuresAndRatios()
    {
        RunFile file;
        file.runs.push_back(reasoningRun(QStringLiteral("a"), 30, 10, 5, 1, 10'000));
        file.runs.push_back(reasoningRun(QStringLiteral("b"), 60, 20, 10, 2, 20'000));
        QString error;
        const nlohmann::json arms = test::comparedChecked(file, CompareOptions { {}, 0, 1, {}, false, {}, {} }, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(arms.size(), std::size_t(1));
        const nlohmann::json& a = arms[0]["configs"][0]["reasoning_tools"];
        const nlohmann::json& b = arms[0]["configs"][1]["reasoning_tools"];
        QCOMPARE(a["ok"].get<double>(), 4.0);
        QCOMPARE(a["reasoning_tokens_per_request"].get<double>(), 30.0);
        QCOMPARE(a["answer_tokens_per_request"].get<double>(), 10.0);
        QCOMPARE(a["reasoning_share"].get<double>(), 30.0 / 45.0); // over answer and tool-call tokens too
        QCOMPARE(a["tool_call_events_per_request"].get<double>(), 5.0);
        QCOMPARE(a["tool_calls_per_request"].get<double>(), 1.0);
        QCOMPARE(a["itl_ms_no_tools"]["p50"].get<double>(), 10.0);
        QCOMPARE(a["itl_ms_no_tools"]["p99"].get<double>(), 10.0);
        QCOMPARE(b["reasoning_tokens_per_request"].get<double>(), 60.0);
        QCOMPARE(b["tool_calls_per_request"].get<double>(), 2.0);
        QCOMPARE(b["itl_ms_no_tools"]["p99"].get<double>(), 20.0);
        const nlohmann::json& ratio = b["ratio"];
        QCOMPARE(ratio["reasoning_tokens_per_request"].get<double>(), 2.0);
        QCOMPARE(ratio["answer_tokens_per_request"].get<double>(), 2.0);
        QCOMPARE(ratio["reasoning_share"].get<double>(), 1.0);
        QCOMPARE(ratio["tool_call_events_per_request"].get<double>(), 2.0);
        QCOMPARE(ratio["tool_calls_per_request"].get<double>(), 2.0);
        QCOMPARE(ratio["itl_ms_no_tools"]["p50"].get<double>(), 2.0);
        QCOMPARE(ratio["itl_ms_no_tools"]["p99"].get<double>(), 2.0);
        // The typed comparison reads the same figures.
        const Comparison typed = comparisonFromJson(arms);
        const ReasoningFigures& tb = *typed[0].configs[1].reasoningTools;
        QCOMPARE(*tb.reasoningTokens, 60.0);
        QCOMPARE(*tb.itlNoTools->p99, 20.0);
        QCOMPARE(*tb.ratio->toolCalls, 2.0);
        QCOMPARE(*tb.ratio->itlNoToolsP50, 2.0);
        QVERIFY(armHasReasoning(typed[0]));
        // The 5 tool-call gaps of 1 ms among 44 leave ITL p50 at the reasoning gap.
        QCOMPARE(arms[0]["configs"][0]["itl_ms"]["p50"].get<double>(), 10.0);

        const QString md = compareMarkdown(arms);
        QVERIFY2(md.contains(QStringLiteral("| config | reasoning tok/req | answer tok/req | reasoning share % | "
                                            "tool-call events/req | tool calls/req | ITL p50 ms | ITL p50 ms no tools "
                                            "| ITL p99 ms | ITL p99 ms no tools |")),
            qPrintable(md));
        QVERIFY2(
            md.contains(QStringLiteral("| a | 30.0 | 10.0 | 66.7 | 5.0 | 1.00 | 10.00 | 10.00 |")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("| b | 60.0 (2.00x) | 20.0 (2.00x) | 66.7 (1.00x) | 10.0 (2.00x) | "
                                            "2.00 (2.00x) | 20.00 | 20.00 (2.00x) |")),
            qPrintable(md));
        QVERIFY(md.contains(QStringLiteral("Ratios against a, no interval.")));
        const QString csv = compareCsv(arms);
        // No intervals: the method columns stay empty.
        QVERIFY2(csv.contains(QStringLiteral("tools,b,reasoning_tokens_per_request,,60.0000,2.0000,,,,,,\n")),
            qPrintable(csv));
        QVERIFY2(csv.contains(QStringLiteral("tools,b,itl_ms_no_tools,p99,20.0000,2.0000,,,,,,\n")), qPrintable(csv));
        QVERIFY(csv.contains(QStringLiteral("tools,a,reasoning_share,,0.6667,1.0000,,,,,,\n")));
    }

    // A configuration without the figures shows n/a, and no ratio is taken against a baseline without them.
    void missingOnOneSide()
    {
        RunFile file;
        file.runs.push_back(reasoningRun(QStringLiteral("a"), 0, 40, 0, 0, 10'000));
        file.runs.push_back(reasoningRun(QStringLiteral("b"), 30, 10, 5, 1, 10'000));
        QString error;
        const nlohmann::json arms = test::comparedChecked(file, CompareOptions { {}, 0, 1, {}, false, {}, {} }, &error);
        const nlohmann::json& a = arms[0]["configs"][0]["reasoning_tools"];
        const nlohmann::json& b = arms[0]["configs"][1]["reasoning_tools"];
        QCOMPARE(a["reasoning_tokens_per_request"].get<double>(), 0.0);
        QVERIFY(!a.contains("tool_calls_per_request"));
        QVERIFY(!b["ratio"].contains("reasoning_tokens_per_request")); // 30 / 0
        QCOMPARE(b["ratio"]["answer_tokens_per_request"].get<double>(), 0.25);
        QVERIFY(!b["ratio"].contains("itl_ms_no_tools"));
        QVERIFY(compareMarkdown(arms).contains(QStringLiteral("| b | 30.0 | 10.0 (0.25x) | 66.7 | 5.0 | 1.00 |")));
    }

    // A run without reasoning or tool calls: compare's output byte for byte as before these figures.
    void plainRunUnchanged()
    {
        RunFile file;
        QString error;
        QVERIFY(readRunFile(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl"), &file, &error));
        CompareOptions options;
        options.slo = experimentSlo(file.experiment);
        const nlohmann::json arms = test::comparedChecked(file, options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const ComparedArm& arm : comparisonFromJson(arms))
            QVERIFY(!armHasReasoning(arm));
        QCOMPARE(compareMarkdown(arms).toUtf8(), golden("fixture-compare.md"));
        QCOMPARE(compareCsv(arms).toUtf8(), golden("fixture-compare.csv"));
        QCOMPARE(QByteArray::fromStdString(arms.dump(2) + '\n'), golden("fixture-compare.json"));
    }
};

QTEST_GUILESS_MAIN(TestReasoningFigures)
#include "tst_reasoningfigures.moc"
