// Repeats in rounds against a launched knobscope-sim (docs/experiments.md,
// "Repeats"): interleaved order, the `round` fields through the reader and the
// replay, repeats that run until decided (decided, and out of budget), and
// `knobscope run SPEC --aa N`.
#include "common/comparisonroundtrip.h"
#include "compare/calibration.h"
#include "compare/comparison.h"
#include "experiment/experimentrunner.h"
#include "source/replayfeed.h"
#include "store/runfile.h"

#include "common/freeport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <QTimer>
#include <cmath>

#include <set>

using namespace ks;
using nlohmann::json;

namespace {

json roundsSpec(quint16 port)
{
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    return {
        { "name", "rounds" },
        { "target", { { "base_url", url } } },
        { "server",
            { { "command",
                  { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                      "{max_num_seqs}" } },
                { "ready_timeout_s", 20 } } },
        { "configs",
            { { { "label", "mns2" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 2 } } } },
                { { "label", "mns16" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 16 } } } } } },
        { "arms",
            json::array({ { { "name", "light" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 6 },
                { "max_tokens", 8 } } }) },
        { "prompts", { { "input_tokens", 16 } } },
    };
}

std::vector<json> linesOf(const QString& path, const char* type)
{
    std::vector<json> lines;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return lines;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        const json j = json::parse(line.begin(), line.end(), nullptr, false);
        if (j.is_object() && j.value("type", std::string()) == type)
            lines.push_back(j);
    }
    return lines;
}

int serverStarts(const QString& path)
{
    int starts = 0;
    for (const json& e : linesOf(path, "server_event"))
        starts += e.value("event", std::string()) == "starting" ? 1 : 0;
    return starts;
}

struct Outcome {
    QString message;
    std::vector<RunInfo> started;
    std::vector<RoundDecision> rounds;
};

Outcome runSpec(const json& doc, const QString& out)
{
    Outcome outcome;
    auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    if (auto* errors = std::get_if<std::vector<SpecError>>(&parsed)) {
        outcome.message = QStringLiteral("spec: ") + errors->front().toString();
        return outcome;
    }
    ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
    QSignalSpy finished(&runner, &ExperimentRunner::finished);
    QObject::connect(&runner, &ExperimentRunner::runStarted, [&](const RunInfo& i) { outcome.started.push_back(i); });
    QObject::connect(
        &runner, &ExperimentRunner::roundDecided, [&](const RoundDecision& d) { outcome.rounds.push_back(d); });
    if (const QString error = runner.start(); !error.isEmpty()) {
        outcome.message = error;
        return outcome;
    }
    if (!finished.wait(180000))
        outcome.message = QStringLiteral("did not finish");
    else
        outcome.message = finished.first().first().toString();
    return outcome;
}

// What a replay of the file sends: the summaries' rounds and the round decisions.
std::pair<std::vector<int>, std::vector<RoundDecision>> replayed(const QString& path)
{
    ReplayFeed feed(path, 0);
    std::vector<int> rounds;
    std::vector<RoundDecision> decisions;
    QObject::connect(&feed, &ReplayFeed::runFinished,
        [&](const QString&, const RunSummary& s) { rounds.push_back(runSummaryToJson(s).value("round", 0)); });
    QObject::connect(&feed, &ReplayFeed::roundDecided, [&](const RoundDecision& d) { decisions.push_back(d); });
    QSignalSpy finished(&feed, &ReplayFeed::finished);
    feed.start();
    finished.wait(30000);
    return { rounds, decisions };
}

} // namespace

class TestRounds : public QObject {
    Q_OBJECT
private slots:
    // Three rounds of two configurations: every round each configuration once (in
    // the round's own order) on a fresh server, each run marked with its round and
    // its place in the spec.
    void interleavesRoundsOfEveryConfiguration()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("rounds.jsonl"));
        json doc = roundsSpec(freePort());
        doc["repeats"] = 3;
        const Outcome outcome = runSpec(doc, out);
        QCOMPARE(outcome.message, QString());

        const std::vector<json> runs = linesOf(out, "run");
        QCOMPARE(runs.size(), std::size_t(6));
        for (const json& run : runs)
            QCOMPARE(run["config_index"].get<int>(), run["config"].get<std::string>() == "mns2" ? 0 : 1);
        for (int r = 1; r <= 3; ++r) {
            std::set<std::string> configs;
            for (int k = 0; k < 2; ++k) {
                const json& run = runs[std::size_t((r - 1) * 2 + k)];
                QCOMPARE(run["round"].get<int>(), r);
                QCOMPARE(run["repeat"].get<int>(), r);
                const std::string suffix = r == 1 ? std::string() : "#" + std::to_string(r);
                QCOMPARE(run["run"].get<std::string>(), run["config"].get<std::string>() + "/light" + suffix);
                configs.insert(run["config"].get<std::string>());
            }
            QCOMPARE(configs.size(), std::size_t(2));
        }
        for (const json& summary : linesOf(out, "summary"))
            QCOMPARE(summary["round"].get<int>(), summary["repeat"].get<int>());
        QCOMPARE(serverStarts(out), 6); // restart_between_configs: a fresh server every visit
        QCOMPARE(outcome.started.size(), std::size_t(6));
        for (std::size_t i = 0; i < outcome.started.size(); ++i) {
            QCOMPARE(outcome.started[i].index, int(i));
            QCOMPARE(outcome.started[i].total, 6);
        }

        // The reader and the replay keep the rounds.
        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        // Whichever ran first, compare takes the spec's first configuration as the baseline.
        CompareOptions options;
        options.resamples = 50;
        const json arms = test::comparedChecked(file, options, &error);
        QCOMPARE(arms[0]["baseline"].get<std::string>(), std::string("mns2"));
        QCOMPARE(arms[0]["configs"][1]["ratio_ci95"]["method"].get<std::string>(), std::string("rounds"));
        QCOMPARE(file.runs.size(), std::size_t(6));
        for (const RunData& run : file.runs) {
            QVERIFY(run.info["round"].is_number_integer());
            QVERIFY(runSummaryToJson(run.summary.value())["round"] == run.info["round"]);
        }
        const auto [rounds, decisions] = replayed(out);
        QCOMPARE(rounds, std::vector<int>({ 1, 1, 2, 2, 3, 3 }));
        QVERIFY(decisions.empty()); // a fixed number of rounds is not judged
    }

    // A loose half-width decides at the first look (round 2 of at most 3).
    void repeatsUntilDecidedStopOnceDecided()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("decided.jsonl"));
        json doc = roundsSpec(freePort());
        doc["configs"][0]["knobs"]["max_num_seqs"] = 16; // the same server twice: the ratio is near 1
        doc["repeats"]
            = { { "min", 2 }, { "max", 3 }, { "until", { { "ratios", { "tpot_ms.p50" } }, { "half_width", 0.9 } } } };
        const Outcome outcome = runSpec(doc, out);
        QCOMPARE(outcome.message, QString());
        QCOMPARE(linesOf(out, "run").size(), std::size_t(4));
        QCOMPARE(outcome.rounds.size(), std::size_t(1));
        const RoundDecision& d = outcome.rounds.front();
        QCOMPARE(d.round, 2);
        QVERIFY(d.decided);
        QCOMPARE(d.stop, QStringLiteral("decided"));
        QCOMPARE(d.ratios.size(), std::size_t(1));
        QCOMPARE(d.ratios[0].arm, QStringLiteral("light"));
        QCOMPARE(d.ratios[0].config, QStringLiteral("mns16")); // against the spec's first configuration
        QVERIFY(d.ratios[0].ci95 && d.ratios[0].ci95->first <= *d.ratios[0].value);
        QCOMPARE(d.confidence, 1 - 0.05 / 2); // two looks planned (rounds 2 and 3)
        QCOMPARE(d.max, 3);
        QCOMPARE(outcome.started.back().total, 6); // planned to the budget; the rounds ended before it

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QCOMPARE(file.rounds.size(), std::size_t(1));
        QCOMPARE(roundDecisionFromLine(file.rounds.front()).stop, QStringLiteral("decided"));
        const auto decisions = replayed(out).second; // one path for live and replayed data
        QCOMPARE(decisions.size(), std::size_t(1));
        QCOMPARE(roundSentence(decisions.front()), roundSentence(d));
        QCOMPARE(*decisions.front().ratios[0].value, *d.ratios[0].value);
    }

    // An interval that cannot get that narrow: every round to the budget, and
    // `knobscope run` says so round by round.
    void repeatsThatCannotDecideSpendTheBudget()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("budget.jsonl"));
        json doc = roundsSpec(freePort());
        doc["repeats"] = { { "min", 2 }, { "max", 3 },
            { "until", { { "ratios", { "light:ttft_ms.p99" } }, { "half_width", 0.0001 } } } };
        const QString spec = dir.filePath(QStringLiteral("budget.json"));
        QFile file(spec);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(doc.dump()));
        file.close();
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), spec, QStringLiteral("--out"), out, QStringLiteral("--progress"),
                QStringLiteral("none") });
        QVERIFY(run.waitForFinished(180000));
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QVERIFY2(run.exitCode() == 0, qPrintable(err));
        QCOMPARE(linesOf(out, "run").size(), std::size_t(6));
        const std::vector<json> rounds = linesOf(out, "round");
        QCOMPARE(rounds.size(), std::size_t(2));
        QCOMPARE(rounds[0]["round"].get<int>(), 2);
        QVERIFY(rounds[0]["stop"].is_null());
        QCOMPARE(rounds[0]["decided"].get<bool>(), false);
        QCOMPARE(rounds[1]["round"].get<int>(), 3);
        QCOMPARE(rounds[1]["stop"].get<std::string>(), std::string("budget"));
        QVERIFY2(err.contains(QStringLiteral("knobscope run: round 2: light ttft_ms.p99 mns16")), qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("round 3: "))
                && err.contains(QStringLiteral("budget of 3 rounds spent: "
                                               "ttft_ms.p99 of light (mns16) "
                                               "still undecided")),
            qPrintable(err));
    }

    // Stop after the first judged round: the file says the rounds were stopped, not decided.
    void aStoppedExperimentSaysSo()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("stopped.jsonl"));
        json doc = roundsSpec(freePort());
        doc["repeats"] = { { "min", 2 }, { "max", 5 },
            { "until", { { "ratios", { "ttft_ms.p99" } }, { "half_width", 0.0001 } } } };
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        std::vector<RoundDecision> decisions;
        QObject::connect(&runner, &ExperimentRunner::roundDecided, [&](const RoundDecision& d) {
            decisions.push_back(d);
            if (decisions.size() == 1) // as Stop or Ctrl-C arrive: from the event loop
                QTimer::singleShot(0, &runner, [&runner] { runner.stop(); });
        });
        QVERIFY(runner.start().isEmpty());
        QVERIFY(finished.wait(180000));
        QCOMPARE(decisions.size(), std::size_t(2));
        QCOMPARE(decisions[1].stop, QStringLiteral("stopped"));
        QCOMPARE(decisions[1].round, 2);
        QVERIFY(decisions[1].ratios.empty());
        const std::vector<json> rounds = linesOf(out, "round");
        QCOMPARE(rounds.size(), std::size_t(2));
        QCOMPARE(rounds[1]["stop"].get<std::string>(), std::string("stopped"));
        QVERIFY2(roundSentence(decisions[1]).startsWith(QStringLiteral("stopped after round 2")),
            qPrintable(roundSentence(decisions[1])));
    }

    // `run --aa 3`: the baseline alone, three rounds on three fresh servers, a
    // file that readCalibration() takes.
    void aaRunsTheBaselineInRounds()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("cal.jsonl"));
        json doc = roundsSpec(freePort());
        doc["arms"].push_back({ { "name", "knee" }, { "mode", "sweep" }, { "over", "concurrency" },
            { "values", { 1, 2 } }, { "requests", 2 }, { "max_tokens", 8 } });
        const QString spec = dir.filePath(QStringLiteral("aa.json"));
        QFile file(spec);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(doc.dump()));
        file.close();
        auto knobscope = [&](const QStringList& extra, QString* err) {
            QProcess run;
            run.start(QStringLiteral(KNOBSCOPE_BIN),
                QStringList { QStringLiteral("run"), spec, QStringLiteral("--out"), out, QStringLiteral("--progress"),
                    QStringLiteral("none") }
                    + extra);
            run.waitForFinished(180000);
            *err = QString::fromUtf8(run.readAllStandardError());
            return run.exitCode();
        };
        QString err;
        QCOMPARE(knobscope({ QStringLiteral("--aa"), QStringLiteral("2") }, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--aa: expected a whole number of runs of at least 3")), qPrintable(err));
        QCOMPARE(knobscope({ QStringLiteral("--aa"), QStringLiteral("3"), QStringLiteral("--baseline"),
                               QStringLiteral("nope") },
                     &err),
            2);
        QVERIFY2(err.contains(QStringLiteral("--baseline: no configuration \"nope\" in the spec (configurations: "
                                             "mns2, mns16)")),
            qPrintable(err));
        QVERIFY(!QFile::exists(out)); // nothing ran
        QCOMPARE(knobscope({ QStringLiteral("--aa"), QStringLiteral("3"), QStringLiteral("--baseline"),
                               QStringLiteral("mns16") },
                     &err),
            0);

        const std::vector<json> experiment = linesOf(out, "experiment");
        QCOMPARE(experiment.size(), std::size_t(1));
        QVERIFY2(experiment[0]["calibration"] == json({ { "config", "mns16" }, { "runs", 3 } }),
            experiment[0].dump().c_str());
        const std::vector<json> runs = linesOf(out, "run");
        QCOMPARE(runs.size(), std::size_t(3)); // the plain arm only
        for (int r = 1; r <= 3; ++r) {
            QCOMPARE(runs[std::size_t(r - 1)]["config"].get<std::string>(), std::string("mns16"));
            QCOMPARE(runs[std::size_t(r - 1)]["arm"].get<std::string>(), std::string("light"));
            QCOMPARE(runs[std::size_t(r - 1)]["round"].get<int>(), r);
        }
        QCOMPARE(serverStarts(out), 3); // a fresh server every round
        QString error;
        const auto calibration = readCalibration(out, &error);
        QVERIFY2(calibration, qPrintable(error));
        QCOMPARE(calibration->config, QStringLiteral("mns16"));
        QCOMPARE(calibration->runs, 3);
        QVERIFY(calibration->arms.count(QStringLiteral("light")));
        const Calibration::Arm& light = calibration->arms.at(QStringLiteral("light"));
        QVERIFY(light.logMean.count("ttft_ms.p50") && light.logSd.count("ttft_ms.p50"));
        QVERIFY(std::isfinite(light.logMean.at("ttft_ms.p50")));
    }
};

QTEST_GUILESS_MAIN(TestRounds)
#include "tst_rounds.moc"
