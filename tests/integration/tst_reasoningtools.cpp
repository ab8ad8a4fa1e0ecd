// Reasoning and tool calls end to end: knobscope sends `tools`, knobscope-sim
// answers with reasoning and then a tool call in vLLM's shapes, and every
// request line's counts equal what the simulator's truth log says it sent.
#include "../sim/simprocess.h"
#include "common/recordroundtrip.h"
#include "load/loadrunner.h"
#include "metrics/runsummary.h"
#include "store/requesttable.h"
#include "truthlog.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <numeric>

using namespace ks;

namespace {

const char* kTools
    = "[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}}]";

std::vector<RequestRecord> runLoad(const LoadSpec& spec)
{
    std::vector<RequestRecord> records;
    LoadRunner runner(spec);
    QObject::connect(&runner, &LoadRunner::recordsReady,
        [&](const QVector<RequestRecord>& batch) { records.insert(records.end(), batch.begin(), batch.end()); });
    QSignalSpy finished(&runner, &LoadRunner::finished);
    const QString error = runner.start();
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    if (finished.isEmpty())
        finished.wait(120000);
    return records;
}

LoadSpec chatSpec(quint16 port, const std::string& toolChoice)
{
    LoadSpec spec;
    spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    spec.api = ApiKind::Chat;
    spec.model = QStringLiteral("sim-reasoning");
    spec.concurrency = 4;
    spec.requests = 12;
    spec.maxTokens = 10;
    spec.inputTokens = 16;
    spec.runLabel = QStringLiteral("rt");
    spec.prompts.toolsJson = kTools;
    spec.prompts.toolChoiceJson = toolChoice;
    return spec;
}

} // namespace

class TestReasoningTools : public QObject {
    Q_OBJECT

    // Runs the load against a fresh simulator; returns the records and, by request index, the truth.
    std::pair<std::vector<RequestRecord>, std::map<qint64, kssim::TruthRecord>> run(const std::string& toolChoice)
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        SimProcess sim;
        QString error;
        if (!sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-reasoning"), QStringLiteral("--truth-log"),
                           truthPath, QStringLiteral("--step-jitter"), QStringLiteral("0") },
                &error)) {
            qWarning("knobscope-sim did not start: %s", qPrintable(error));
            return {};
        }
        std::vector<RequestRecord> records = runLoad(chatSpec(sim.port(), toolChoice));
        sim.terminate();
        std::map<qint64, kssim::TruthRecord> truth;
        for (const kssim::TruthRecord& t : kssim::readTruthLog(truthPath))
            truth[kssim::requestIndexOf(t)] = t;
        return { std::move(records), std::move(truth) };
    }

private slots:
    void initTestCase() { qRegisterMetaType<LoadResult>(); }

    void toolCallCountsEqualTheTruthLog()
    {
        const auto [records, truth] = run("\"auto\"");
        QCOMPARE(records.size(), std::size_t(12));
        for (const RequestRecord& r : records) {
            QVERIFY2(r.ok, qPrintable(r.error + QLatin1String(": ") + r.errorDetail));
            QVERIFY(truth.count(r.id));
            const kssim::TruthRecord& t = truth.at(r.id);
            QCOMPARE(t.finishReason, QByteArray("tool_calls"));
            QVERIFY(t.reasoningTokens > 0);
            QVERIFY(t.toolCallEvents > 0);
            QCOMPARE(r.reasoningTokens, t.reasoningTokens);
            QVERIFY(!r.reasoningTokensFromUsage); // vLLM sends no completion_tokens_details
            QCOMPARE(r.answerTokens, t.answerTokens);
            QCOMPARE(r.toolCallEvents, t.toolCallEvents);
            QCOMPARE(r.toolCalls, t.toolCalls);
            QCOMPARE(r.toolCalls, 1);
            QCOMPARE(r.ttfcUs, qint64(-1)); // a tool call carries no content
            QCOMPARE(r.itlGapsBeforeTools(), qsizetype(r.itlUs.size()) - t.toolCallEvents);

            // The request line carries the counts, and both readers give them back.
            const std::optional<RequestRecord> read = roundTrip(r);
            QVERIFY(read);
            const RequestRecord& back = *read;
            QCOMPARE(back.reasoningTokens, r.reasoningTokens);
            QCOMPARE(back.answerTokens, r.answerTokens);
            QCOMPARE(back.toolCallEvents, r.toolCallEvents);
            QCOMPARE(back.toolCalls, r.toolCalls);
        }
        // The summary's ITL without tool-call deltas is over fewer gaps, from the rows of a loaded run too.
        const nlohmann::json live = summarizeRun(QStringLiteral("rt"), {}, {}, records, {});
        const nlohmann::json loaded
            = summarizeRun(QStringLiteral("rt"), {}, {}, RequestTable::fromRecords(QStringLiteral("rt"), records), {});
        QVERIFY(live.contains("itl_ms_no_tools"));
        QVERIFY(live["itl_ms_no_tools"]["count"].get<int>() < live["itl_ms"]["count"].get<int>());
        QVERIFY(loaded["itl_ms_no_tools"] == live["itl_ms_no_tools"]);
        QVERIFY(loaded["tool_calls"] == live["tool_calls"]);
        QCOMPARE(live["tool_calls"].get<int>(), 12);
    }

    // tool_choice "none": reasoning, then content. TTFC is taken at the first
    // content event, which the truth log puts after its reasoning events.
    void ttfcAtTheTruthLogsFirstContentEvent()
    {
        const auto [records, truth] = run("\"none\"");
        QCOMPARE(records.size(), std::size_t(12));
        for (const RequestRecord& r : records) {
            QVERIFY2(r.ok, qPrintable(r.error));
            const kssim::TruthRecord& t = truth.at(r.id);
            QCOMPARE(t.toolCallEvents, 0);
            QCOMPARE(r.toolCallEvents, 0);
            QCOMPARE(r.reasoningTokens, t.reasoningTokens);
            QCOMPARE(r.answerTokens, t.answerTokens);
            QVERIFY(t.answerTokens > 0);
            // Event k's time is TTFT plus the first k gaps: TTFC is event `reasoning_tokens`.
            const auto k = std::size_t(t.reasoningTokens);
            QVERIFY(r.itlUs.size() >= k);
            QCOMPARE(r.ttfcUs - r.ttftUs, std::accumulate(r.itlUs.begin(), r.itlUs.begin() + k, qint64(0)));
        }
    }
};

QTEST_GUILESS_MAIN(TestReasoningTools)
#include "tst_reasoningtools.moc"
