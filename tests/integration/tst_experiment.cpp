// The experiment runner end to end: launched simulator, configs x arms, one file.
#include "common/comparisonroundtrip.h"
#include "compare/comparison.h"
#include "experiment/experimentrunner.h"
#include "metrics/armverdicts.h"
#include "metrics/loghistogram.h"
#include "store/runfile.h"

#include "common/freeport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace ks;
using nlohmann::json;

namespace {

json miniSpec(quint16 port, const std::string& program)
{
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    return {
        { "name", "mini" },
        { "target", { { "base_url", url } } },
        { "server",
            { { "command",
                  { program, "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                      "{max_num_seqs}" } },
                { "ready_timeout_s", 20 } } },
        { "configs",
            { { { "label", "mns2" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 2 } } } },
                { { "label", "mns16" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 16 } } } } } },
        { "arms",
            { { { "name", "light" }, { "mode", "concurrency" }, { "concurrency", 1 }, { "requests", 4 },
                  { "max_tokens", 24 } },
                { { "name", "heavy" }, { "mode", "concurrency" }, { "concurrency", 8 }, { "requests", 24 },
                    { "max_tokens", 24 } } } },
        { "prompts", { { "input_tokens", 16 } } },
    };
}

std::map<QString, RunSnapshot>& lastSnapshots()
{
    static std::map<QString, RunSnapshot> snapshots;
    return snapshots;
}

QString runExperiment(const json& doc, const QString& out)
{
    auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    if (auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
        return QStringLiteral("spec: ") + errors->front().toString();
    ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
    QSignalSpy finished(&runner, &ExperimentRunner::finished);
    QObject::connect(&runner, &ExperimentRunner::snapshotReady,
        [](const QString& run, const RunSnapshot& s) { lastSnapshots()[run] = s; });
    if (const QString error = runner.start(); !error.isEmpty())
        return error;
    if (!finished.wait(120000))
        return QStringLiteral("did not finish");
    return finished.first().first().toString();
}

bool portAnswers(quint16 port)
{
    QTcpSocket probe;
    probe.connectToHost(QHostAddress::LocalHost, port);
    return probe.waitForConnected(500);
}

std::vector<json> fileLines(const QString& path)
{
    std::vector<json> lines;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return lines;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        lines.push_back(json::parse(line.begin(), line.end(), nullptr, false));
    }
    return lines;
}

std::vector<std::string> serverEvents(const std::vector<json>& lines)
{
    std::vector<std::string> events;
    for (const json& j : lines) {
        if (j.value("type", std::string()) == "server_event")
            events.push_back(j.value("event", std::string()));
    }
    return events;
}

// Linear-interpolation percentile written here, independently of the core's.
double p50(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const double rank = 0.5 * double(v.size() - 1);
    const auto lo = std::size_t(rank);
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (rank - double(lo));
}

} // namespace

class TestExperiment : public QObject {
    Q_OBJECT
private slots:
    void gentleRule()
    {
        std::vector<RequestRecord> eightAtOnce;
        for (int i = 0; i < 8; ++i) {
            RequestRecord r;
            r.tSendUs = 0;
            r.e2eUs = 1000;
            eightAtOnce.push_back(r);
        }
        QCOMPARE(peakInFlight(eightAtOnce), 8);
        QVERIFY(isGentleArm(eightAtOnce, 40, 2, std::nullopt)); // 5 % of scrapes: momentary waits
        QVERIFY(!isGentleArm(eightAtOnce, 40, 20, 1000)); // a real queue beats the knob
        QVERIFY(isGentleArm(eightAtOnce, 3, 3, 16)); // too few scrapes: 8 in flight <= 16 slots
        QVERIFY(!isGentleArm(eightAtOnce, 0, 0, 4)); // no metrics: 8 in flight > 4 slots
        QVERIFY(!isGentleArm(eightAtOnce, 0, 0, std::nullopt)); // nothing to judge by: not called gentle

        // The warning says what is true: half the slots busy is no idle server.
        const QString busy = gentleWarning(eightAtOnce, 16);
        QVERIFY2(busy.contains(QStringLiteral("within max_num_seqs (peak 8 of 16)")), qPrintable(busy));
        QVERIFY2(!busy.contains(QStringLiteral("idle")), qPrintable(busy));
        const QString idle = gentleWarning(eightAtOnce, 64);
        QVERIFY2(idle.contains(QStringLiteral("idle server")), qPrintable(idle));
        const QString unknown = gentleWarning(eightAtOnce, std::nullopt);
        QVERIFY2(unknown.contains(QStringLiteral("cannot show a queueing cliff")), qPrintable(unknown));
        QVERIFY2(!unknown.contains(QStringLiteral("idle")), qPrintable(unknown));
    }

    // A 2x2 grid (model x max_num_seqs) with one short arm: four configurations,
    // each run line with its scalar knobs and its grid point, each summary with
    // the knob values it measured.
    void runsEveryPointOfAGrid()
    {
        json doc = miniSpec(freePort(), KNOBSCOPE_SIM_BIN);
        doc["configs"] = { { { "label", "{model}-mns{max_num_seqs}" }, { "model", { "sim-1.8b", "sim-8b" } },
            { "knobs", { { "max_num_seqs", { 2, 16 } } } } } };
        doc["arms"] = { { { "name", "light" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 2 },
            { "max_tokens", 8 } } };
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("grid.jsonl"));
        QCOMPARE(runExperiment(doc, out), QString());
        std::vector<json> runLines;
        std::vector<json> summaries;
        for (const json& j : fileLines(out)) {
            if (j.value("type", std::string()) == "run")
                runLines.push_back(j);
            else if (j.value("type", std::string()) == "summary")
                summaries.push_back(j);
            else if (j.value("type", std::string()) == "experiment") // the spec as written, lists and all
                QVERIFY(j["spec"]["configs"][0]["knobs"]["max_num_seqs"] == json({ 2, 16 }));
        }
        QCOMPARE(runLines.size(), std::size_t(4));
        QCOMPARE(summaries.size(), std::size_t(4));
        const std::pair<const char*, int> points[]
            = { { "sim-1.8b", 2 }, { "sim-1.8b", 16 }, { "sim-8b", 2 }, { "sim-8b", 16 } };
        for (std::size_t i = 0; i < 4; ++i) {
            const auto& [model, mns] = points[i];
            const std::string label = std::string(model) + "-mns" + std::to_string(mns);
            const json& run = runLines[i];
            QCOMPARE(run["config"].get<std::string>(), label);
            QCOMPARE(run["model"].get<std::string>(), std::string(model));
            QVERIFY2(run["knobs"] == json({ { "max_num_seqs", mns } }), run.dump().c_str());
            QVERIFY2(run["grid"]
                    == json({ { "from", "{model}-mns{max_num_seqs}" },
                        { "values", { { "model", model }, { "max_num_seqs", mns } } } }),
                run.dump().c_str());
            const json& summary = summaries[i];
            QCOMPARE(summary["config"].get<std::string>(), label);
            QVERIFY2(summary["knobs"] == json({ { "max_num_seqs", mns } }), summary.dump().c_str());
            QCOMPARE(summary["model"].get<std::string>(), std::string(model));
            QCOMPARE(summary["ok"].get<int>(), 2);
        }
        RunFile runs; // the reader keeps both fields
        QString error;
        QVERIFY(readRunFile(out, &runs, &error));
        QCOMPARE(runs.issues.size(), std::size_t(0));
        QCOMPARE(runs.runs.back().info["grid"]["values"]["max_num_seqs"].get<int>(), 16);
        QCOMPARE(runSummaryToJson(runs.runs.back().summary.value())["knobs"]["max_num_seqs"].get<int>(), 16);
    }

    void runsEveryArmOfEveryConfigIntoOneFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("mini.jsonl"));
        QCOMPARE(runExperiment(miniSpec(freePort(), KNOBSCOPE_SIM_BIN), out), QString());

        std::map<std::string, int> types;
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QString currentRun;
        while (!file.atEnd()) {
            const QByteArray line = file.readLine();
            const json j = json::parse(line.begin(), line.end());
            const std::string type = j["type"].get<std::string>();
            ++types[type];
            if (type == "run")
                currentRun = QString::fromStdString(j["run"].get<std::string>());
            else if (type == "summary")
                currentRun.clear();
            if (type != "server_event")
                continue;
            // Outside an arm there is no run clock: t_us is null, never measured
            // from the previous arm's t0; every event has its wall time.
            QVERIFY2(j.contains("wall") && j["wall"].is_string(), line.constData());
            if (currentRun.isEmpty())
                QVERIFY2(j["t_us"].is_null(), line.constData());
            else
                QVERIFY2(j["t_us"].is_number_integer() && j["t_us"].get<qint64>() >= 0, line.constData());
        }
        QCOMPARE(types["experiment"], 1);
        QCOMPARE(types["run"], 4);
        QCOMPARE(types["summary"], 4);
        QCOMPARE(types["request"], 2 * (4 + 24));
        QVERIFY(types["server"] >= 4);
        QVERIFY(types["server_event"] >= 4); // starting, ready, stopped per configuration at least
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("mini.server.log"))));

        RunFile runs;
        QString error;
        QVERIFY(readRunFile(out, &runs, &error));
        QCOMPARE(runs.runs.size(), std::size_t(4));
        std::map<QString, json> summaries;
        for (const RunData& run : runs.runs) {
            std::vector<double> ttft;
            for (const RequestRecord& r : run.requests) {
                QVERIFY(r.ok);
                ttft.push_back(double(r.ttftUs) / 1000.0);
            }
            QCOMPARE(run.summary.value().ttftMs.value().p50.value(), p50(ttft));
            // The last live snapshot of the run agrees with the file.
            const RunSnapshot& live = lastSnapshots()[run.run];
            QCOMPARE(live.ok, int(run.requests.size()));
            // Live cumulative percentiles come from a log-linear histogram: within its stated bound.
            QVERIFY2(std::abs(live.ttftMs.p50 - p50(ttft)) <= LogHistogram::kRelativeError * p50(ttft),
                qPrintable(QStringLiteral("live %1, file %2").arg(live.ttftMs.p50).arg(p50(ttft))));
            QCOMPARE(run.summary.value().ok.value(), qint64(run.requests.size()));
            summaries[run.run] = run.summary ? runSummaryToJson(*run.summary) : json();
        }
        // Eight clients on two slots queue; on sixteen slots they do not.
        QCOMPARE(summaries[QStringLiteral("mns2/heavy")]["gentle"].get<bool>(), false);
        QVERIFY(summaries[QStringLiteral("mns2/heavy")]["server"]["max_waiting"].get<double>() >= 4);
        QCOMPARE(summaries[QStringLiteral("mns16/heavy")]["gentle"].get<bool>(), true);
        QCOMPARE(summaries[QStringLiteral("mns16/light")]["gentle"].get<bool>(), true);
        auto warnings = [&](const char* run) {
            return QString::fromStdString(summaries[QString::fromLatin1(run)]["warnings"].dump());
        };
        QVERIFY2(warnings("mns16/heavy").contains(QStringLiteral("within max_num_seqs (peak 8 of 16)")),
            qPrintable(warnings("mns16/heavy")));
        QVERIFY2(warnings("mns16/light").contains(QStringLiteral("idle server")), qPrintable(warnings("mns16/light")));
        QCOMPARE(summaries[QStringLiteral("mns2/heavy")]["status"].get<std::string>(), std::string("completed"));
    }

    // A concurrency sweep against the real simulator: with 2 slots, TTFT breaks
    // the SLO from 4 in flight on, so that sweep stops after two broken steps;
    // with 16 slots every step holds. Then an arm with repeats, blocked.
    void sweepStopsEarlyPerConfigurationAndRepeatsFollow()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("sweep.jsonl"));
        json doc = miniSpec(freePort(), KNOBSCOPE_SIM_BIN);
        doc["arms"] = { { { "name", "ladder" }, { "mode", "sweep" }, { "over", "concurrency" },
                            { "values", { 1, 4, 8, 16 } }, { "requests", 16 }, { "max_tokens", 24 } },
            { { "name", "again" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 6 },
                { "max_tokens", 8 }, { "repeats", 2 } } };
        doc["slo"] = { { "ttft_ms", 300 } };
        doc["order"] = "blocked"; // every repeat of a configuration before the next: the order before rounds
        QCOMPARE(runExperiment(doc, out), QString());

        QStringList runs;
        json stopped;
        for (const json& j : fileLines(out)) {
            const std::string type = j.value("type", std::string());
            if (type == "run")
                runs << QString::fromStdString(j["run"].get<std::string>());
            if (type == "run" && j.contains("sweep")) {
                QCOMPARE(j["sweep"]["arm"].get<std::string>(), std::string("ladder"));
                QCOMPARE(j["sweep"]["over"].get<std::string>(), std::string("concurrency"));
                QCOMPARE(j["arm"].get<std::string>(), "ladder@" + std::to_string(j["sweep"]["value"].get<int>()));
            }
            if (type == "run" && j["arm"] == "again")
                QCOMPARE(j["repeat"].get<int>(), runs.last().endsWith(QStringLiteral("#2")) ? 2 : 1);
            if (type == "summary" && j.contains("sweep") && j["sweep"].contains("stop"))
                stopped = j;
        }
        const QStringList expected { QStringLiteral("mns2/ladder@1"), QStringLiteral("mns2/ladder@4"),
            QStringLiteral("mns2/ladder@8"), QStringLiteral("mns2/again"), QStringLiteral("mns2/again#2"),
            QStringLiteral("mns16/ladder@1"), QStringLiteral("mns16/ladder@4"), QStringLiteral("mns16/ladder@8"),
            QStringLiteral("mns16/ladder@16"), QStringLiteral("mns16/again"), QStringLiteral("mns16/again#2") };
        QCOMPARE(runs, expected);
        QCOMPARE(stopped["run"].get<std::string>(), std::string("mns2/ladder@8"));
        QVERIFY(stopped["sweep"]["stop"].get<std::string>().find("two steps in a row") != std::string::npos);

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        CompareOptions options;
        options.resamples = 0;
        const json arms = test::comparedChecked(file, options, &error);
        QCOMPARE(arms[0]["arm"].get<std::string>(), std::string("ladder"));
        QCOMPARE(arms[0]["sweep"]["capacity"]["mns2"].get<double>(), 1.0);
        QCOMPARE(arms[0]["sweep"]["capacity"]["mns16"].get<double>(), 16.0);
        const auto again = std::find_if(arms.begin(), arms.end(), [](const json& a) { return a["arm"] == "again"; });
        QVERIFY(again != arms.end());
        QCOMPARE((*again)["configs"][0]["repeats"]["n"].get<int>(), 2);
        QCOMPARE((*again)["configs"][0]["requests"].get<int>(), 12);
    }

    void aServerKilledMidArmEndsThatArmAndTheRunnerMovesOn()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("killed.jsonl"));
        const quint16 port = freePort();
        json spec = miniSpec(port, KNOBSCOPE_SIM_BIN);
        spec["arms"][1]["requests"] = 400; // long enough to be killed in the middle
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(spec.dump()));
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        bool killed = false;
        connect(&runner, &ExperimentRunner::progressed, this, [&](const LoadProgress& p) {
            if (killed || p.done < 20 || p.expected != 400)
                return;
            killed = true; // the first configuration's heavy arm, well under way
            QProcess::execute(QStringLiteral("pkill"),
                { QStringLiteral("-9"), QStringLiteral("-f"), QStringLiteral("--"),
                    QStringLiteral("--port %1 --profile sim-1.8b --max-num-seqs 2").arg(port) });
        });
        QVERIFY(runner.start().isEmpty());
        QVERIFY(finished.wait(120000));
        QVERIFY(killed);
        QVERIFY2(finished.first().first().toString().contains(QStringLiteral("server exited")),
            qPrintable(finished.first().first().toString()));
        RunFile runs;
        QString error;
        QVERIFY(readRunFile(out, &runs, &error));
        std::map<QString, json> summaries;
        for (const RunData& run : runs.runs)
            summaries[run.run] = run.summary ? runSummaryToJson(*run.summary) : json();
        QCOMPARE(summaries[QStringLiteral("mns2/heavy")]["status"].get<std::string>(), std::string("server_exited"));
        QVERIFY(summaries[QStringLiteral("mns2/heavy")]["requests"].get<int>() < 400);
        QCOMPARE(summaries[QStringLiteral("mns16/light")]["status"].get<std::string>(),
            std::string("completed")); // a fresh server
        QCOMPARE(summaries[QStringLiteral("mns16/heavy")]["ok"].get<int>(), 400);
    }

    void aConfigWhoseServerCannotStartIsSkippedWithAClearMessage()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("broken.jsonl"));
        json spec = miniSpec(freePort(), KNOBSCOPE_SIM_BIN);
        spec["configs"][0]["model"] = "no-such-profile"; // the simulator refuses to start
        spec["arms"].erase(1);
        const QString problems = runExperiment(spec, out);
        QVERIFY2(problems.contains(QStringLiteral("mns2")) && problems.contains(QStringLiteral("unknown profile")),
            qPrintable(problems));
        RunFile runs;
        QString error;
        QVERIFY(readRunFile(out, &runs, &error));
        QCOMPARE(runs.runs.size(), std::size_t(1)); // the second configuration still ran
        QCOMPARE(runs.runs.front().run, QStringLiteral("mns16/light"));
    }

    // Stop while the launcher still waits for readiness (here: a ready path
    // the simulator answers with 404, and a 600 s readiness timeout): the wait
    // ends at once, the server is stopped and the file closes cleanly.
    void stopWhileTheServerStartsStopsItAndClosesTheFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("starting.jsonl"));
        const quint16 port = freePort();
        json spec = miniSpec(port, KNOBSCOPE_SIM_BIN);
        spec["server"]["ready_path"] = "/never-ready";
        spec["server"]["ready_timeout_s"] = 600;
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(spec.dump()));
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        QSignalSpy armStarted(&runner, &ExperimentRunner::runStarted);
        QVERIFY(runner.start().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(portAnswers(port), 30000); // the server is up, but never ready
        runner.stop();
        QVERIFY(finished.wait(30000)); // not the 600 s readiness wait
        QCOMPARE(finished.first().first().toString(), QString());
        QCOMPARE(armStarted.size(), 0);
        QVERIFY(!portAnswers(port)); // finished() comes after the server has exited

        const std::vector<json> lines = fileLines(out);
        QVERIFY(std::none_of(lines.begin(), lines.end(), [](const json& j) { return j.is_discarded(); }));
        const std::vector<std::string> events = serverEvents(lines);
        QCOMPARE(std::count(events.begin(), events.end(), "starting"), 1);
        QCOMPARE(std::count(events.begin(), events.end(), "ready"), 0);
        QCOMPARE(events.back(), std::string("stopped"));
        RunFile runs;
        QString error;
        QVERIFY(readRunFile(out, &runs, &error));
        QVERIFY(runs.issues.empty());
        QVERIFY(runs.runs.empty());
    }

    // The run file's folder removed mid-arm: the next flush notices, the arm
    // stops, the server is stopped, and the error names the file. The arm's
    // summary still reaches runFinished() (a dashboard shows it), and the
    // message says it could not be saved.
    void aVanishedFolderStopsTheRunNamingTheFile()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("runs")));
        const QString out = dir.filePath(QStringLiteral("runs/vanish.jsonl"));
        const quint16 port = freePort();
        json spec = miniSpec(port, KNOBSCOPE_SIM_BIN);
        spec["configs"].erase(1);
        spec["arms"] = json::array({ { { "name", "long" }, { "mode", "concurrency" }, { "concurrency", 4 },
            { "requests", 100000 }, { "max_tokens", 8 } } });
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(spec.dump()));
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        QSignalSpy armFinished(&runner, &ExperimentRunner::runFinished);
        bool removed = false;
        connect(&runner, &ExperimentRunner::progressed, this, [&](const LoadProgress& p) {
            if (removed || p.done < 20)
                return;
            removed = true;
            QDir(dir.filePath(QStringLiteral("runs"))).removeRecursively();
        });
        QVERIFY(runner.start().isEmpty());
        QVERIFY(finished.wait(120000)); // 100000 requests would take far longer
        QVERIFY(removed);
        const QString message = finished.first().first().toString();
        QVERIFY2(message.startsWith(QStringLiteral("the run file %1 was deleted").arg(out)), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("not the summary of mns2/long")), qPrintable(message));
        QCOMPARE(runner.fileError(), message.section(QLatin1Char('\n'), 0, 0));
        QCOMPARE(armFinished.size(), 1);
        const json summary = runSummaryToJson(armFinished.first().at(1).value<RunSummary>());
        QCOMPARE(summary["status"].get<std::string>(), std::string("stopped"));
        QVERIFY(summary["requests"].get<int>() >= 20 && summary["requests"].get<int>() < 100000);
        QVERIFY(!portAnswers(port));
    }
};

QTEST_GUILESS_MAIN(TestExperiment)
#include "tst_experiment.moc"
