// Speculative decoding end to end: knobscope-sim drafts and accepts tokens,
// knobscope scrapes vLLM's spec-decode counters, and the arm's summary gives
// the acceptance and mean accepted length the simulator's truth log implies;
// with spec decoding off the figures are absent, never 0.
#include "experiment/experimentrunner.h"
#include "truthlog.h"

#include "common/freeport.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace ks;
using nlohmann::json;

namespace {

json specDoc(quint16 port, const QString& dir)
{
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    auto config = [&](const char* label, int tokens) {
        return json { { "label", label }, { "model", "sim-1.8b" },
            { "knobs",
                { { "spec_tokens", tokens },
                    { "truth",
                        (dir + QLatin1Char('/') + QLatin1String(label) + QLatin1String(".truth.jsonl"))
                            .toStdString() } } } };
    };
    // The idle wake-up gives the arm's first scrape a head start over the first decode step.
    return { { "name", "spec" }, { "target", { { "base_url", url }, { "api", "chat" } } },
        { "server",
            { { "command",
                  { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}", "--engine-seed", "3",
                      "--idle-wake-ms", "40", "--spec-tokens", "{spec_tokens}", "--spec-accept", "0.7", "--truth-log",
                      "{truth}" } },
                { "ready_timeout_s", 20 }, { "restart_between_configs", true } } },
        { "configs", { config("spec", 3), config("plain", 0) } },
        { "arms",
            { { { "name", "c4" }, { "mode", "concurrency" }, { "concurrency", 4 }, { "requests", 8 },
                { "max_tokens", 24 } } } },
        { "prompts", { { "input_tokens", 16 } } } };
}

} // namespace

class TestSpecDecodeE2e : public QObject {
    Q_OBJECT
private slots:
    void summaryMatchesTheTruthLog()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("spec.jsonl"));
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(specDoc(freePort(), dir.path()).dump()));
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        std::map<QString, RunSnapshot> snapshots;
        {
            ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
            QSignalSpy finished(&runner, &ExperimentRunner::finished);
            connect(&runner, &ExperimentRunner::snapshotReady,
                [&](const QString& run, const RunSnapshot& s) { snapshots[run] = s; });
            QCOMPARE(runner.start(), QString());
            QVERIFY(finished.wait(60000));
            QCOMPARE(finished.first().first().toString(), QString());
        }
        std::map<std::string, json> summaries;
        int scrapesWithSpec = 0;
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        while (!file.atEnd()) {
            const QByteArray text = file.readLine();
            const json line = json::parse(text.begin(), text.end(), nullptr, false);
            if (line.value("type", std::string()) == "summary")
                summaries[line.value("config", std::string())] = line;
            if (line.value("type", std::string()) == "server" && line.contains("spec_decode"))
                ++scrapesWithSpec;
        }
        QVERIFY(scrapesWithSpec > 0);

        double drafts = 0, draftTokens = 0, accepted = 0;
        for (const kssim::TruthRecord& r : kssim::readTruthLog(dir.filePath(QStringLiteral("spec.truth.jsonl")))) {
            drafts += r.specDrafts;
            draftTokens += r.specDraftTokens;
            accepted += r.specAcceptedTokens;
        }
        QVERIFY(drafts > 0);
        QCOMPARE(draftTokens, 3 * drafts);
        const json& spec = summaries["spec"];
        QVERIFY2(spec.contains("spec_acceptance"), spec.dump().c_str());
        QVERIFY(std::abs(spec["spec_acceptance"].get<double>() - accepted / draftTokens) < 1e-9);
        QVERIFY(std::abs(spec["spec_mean_accepted"].get<double>() - (1 + accepted / drafts)) < 1e-9);
        QVERIFY(snapshots[QStringLiteral("spec/c4")].specAcceptance >= 0); // the live series
        QVERIFY(std::abs(snapshots[QStringLiteral("spec/c4")].specMeanAccepted - (1 + accepted / drafts)) < 0.2);

        const json& plain = summaries["plain"];
        QVERIFY(plain.contains("tpot_ms"));
        QVERIFY(!plain.contains("spec_acceptance"));
        QVERIFY(!plain.contains("spec_mean_accepted"));
        QCOMPARE(snapshots[QStringLiteral("plain/c4")].specAcceptance, -1.0);
    }
};

QTEST_GUILESS_MAIN(TestSpecDecodeE2e)
#include "tst_specdecode_e2e.moc"
