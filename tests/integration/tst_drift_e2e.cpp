// The drift finding end to end: probe passes against the launched simulator,
// then `knobscope drift` on the file the runner wrote.
#include "experiment/experimentrunner.h"

#include "common/freeport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json driftSpec(quint16 port)
{
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    return {
        { "name", "drift" },
        { "target", { { "base_url", url }, { "api", "chat" } } },
        { "server",
            { { "command",
                  { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                      "{max_num_seqs}" } },
                { "ready_timeout_s", 20 } } },
        { "configs",
            { { { "label", "8b" }, { "model", "sim-8b" }, { "knobs", { { "max_num_seqs", 64 } } } },
                { { "label", "reasoning" }, { "model", "sim-reasoning" }, { "knobs", { { "max_num_seqs", 64 } } } } } },
        { "arms", json::array() },
        // 32 tokens reach every near-tie the simulator places (within the first 24).
        { "probes", { { "max_tokens", 32 }, { "repeats", 3 }, { "across_restart", true }, { "concurrency", 10 } } },
    };
}

struct CliResult {
    int exitCode = -1;
    QByteArray out, err;
};

CliResult knobscope(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(KNOBSCOPE_BIN), args);
    p.waitForFinished(60000);
    return { p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError() };
}

const json& runOf(const json& report, const char* config)
{
    for (const json& r : report["runs"]) {
        if (r["config"] == config)
            return r;
    }
    static const json none;
    return none;
}

} // namespace

class TestDriftEndToEnd : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_file;
    int m_lastLiveMismatches = -1;
    int m_lastLiveOutputs = -1;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_file = m_dir.filePath(QStringLiteral("drift.jsonl"));
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(driftSpec(freePort()).dump()));
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), m_file);
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        connect(&runner, &ExperimentRunner::snapshotReady, this, [this](const QString&, const RunSnapshot& s) {
            m_lastLiveMismatches = s.driftMismatches;
            m_lastLiveOutputs = s.probeOutputs;
        });
        QCOMPARE(runner.start(), QString());
        QVERIFY(finished.wait(240000));
        QCOMPARE(finished.first().first().toString(), QString());
    }

    void reproducesTheFinding()
    {
        const CliResult r = knobscope({ QStringLiteral("drift"), m_file, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json report = json::parse(r.out.toStdString());
        QCOMPARE(report["set"].get<std::string>(), std::string("quality-50"));
        QCOMPARE(report["set_version"].get<std::string>(), std::string("1"));

        const json& stable = runOf(report, "8b");
        QCOMPARE(stable["probes"].get<int>(), 50);
        QCOMPARE(stable["repeats"].get<int>(), 3);
        QCOMPARE(stable["restarts"].get<int>(), 1);
        QCOMPARE(stable["errors"].get<int>(), 0);
        QCOMPARE(stable["mismatches"].get<int>(), 0); // bit-for-bit over 3 repeats and a restart

        const json& reasoning = runOf(report, "reasoning");
        QCOMPARE(reasoning["errors"].get<int>(), 0);
        const int within = reasoning["within_run"].get<int>();
        const int restart = reasoning["across_restart"].get<int>();
        QVERIFY2(within >= 5 && within <= 15, qPrintable(QString::number(within)));
        QVERIFY2(restart >= within, qPrintable(QStringLiteral("%1 < %2").arg(restart).arg(within)));
        QCOMPARE(reasoning["mismatch_ids"].size(), std::size_t(reasoning["mismatches"].get<int>()));

        // Every changed probe says where it parted, with text either side.
        QVERIFY(!report["diffs"].empty());
        for (const json& d : report["diffs"]) {
            QCOMPARE(d["config"].get<std::string>(), std::string("reasoning"));
            QVERIFY(d["char"].get<int>() >= 0);
            QVERIFY(d["word"].get<int>() >= 0);
            const std::string ref = d["reference_excerpt"];
            const std::string other = d["other_excerpt"];
            QVERIFY(ref != other);
        }
        // The live stream counted the same mismatches the file analysis finds.
        QCOMPARE(m_lastLiveMismatches, reasoning["mismatches"].get<int>());
        QCOMPARE(m_lastLiveOutputs, 2 * 50 * 4);

        const CliResult text = knobscope({ QStringLiteral("drift"), m_file });
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("first divergence"));
    }

    void comparesTwoFiles()
    {
        const CliResult r = knobscope({ QStringLiteral("drift"), m_file, m_file, QStringLiteral("--json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const json report = json::parse(r.out.toStdString());
        QCOMPARE(report["runs"].size(), std::size_t(4));
        for (const json& run : report["runs"]) {
            if (run["source"] == 1)
                QCOMPARE(run["across_config"].get<int>(), 0); // the same outputs, compared file to file
        }
    }

    void refusesAChangedProbeSet()
    {
        QFile in(m_file);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        const QByteArray sha = "\"sha256\":\"";
        const qsizetype at = text.indexOf(sha);
        QVERIFY(at > 0);
        text.replace(at + sha.size(), 8, "00000000"); // as if a probe had been edited
        const QString other = m_dir.filePath(QStringLiteral("edited.jsonl"));
        QFile out(other);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const CliResult r = knobscope({ QStringLiteral("drift"), m_file, other });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("different probe sets"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestDriftEndToEnd)
#include "tst_drift_e2e.moc"
