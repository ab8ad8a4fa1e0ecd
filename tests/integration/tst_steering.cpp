// Live control (docs/experiments.md, "Steering"): `knobscope run --control
// stdin` fed concurrency 4, 32 and 8 makes the server see 4, 32 and 8 streams
// within a second of each command, and the file holds one summarized segment
// per setting. Checked against knobscope-sim's truth log, which records when
// the server itself saw each request arrive and end.
#include "common/comparisonroundtrip.h"
#include "compare/comparison.h"
#include "store/runfile.h"
#include "truthlog.h"

#include "sim/simprocess.h"
#include "steeredrun.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

using namespace ks;
using namespace steered;

namespace {

/// Requests the server held (arrived, not yet ended) at `tUs`.
int inFlightAt(const std::vector<kssim::TruthRecord>& truth, qint64 tUs)
{
    return int(std::count_if(truth.begin(), truth.end(),
        [tUs](const kssim::TruthRecord& r) { return r.arrivalUs <= tUs && (r.endUs < 0 || tUs < r.endUs); }));
}

struct Window {
    int expected;
    qint64 fromUs; ///< a second after the command
    qint64 toUs; ///< the next command
};

/// What the server saw in a window, every 20 ms: the most in flight, and the
/// share of instants with exactly the expected number.
QString checkWindow(const std::vector<kssim::TruthRecord>& truth, const Window& w)
{
    int most = 0;
    int exact = 0;
    int samples = 0;
    for (qint64 t = w.fromUs; t < w.toUs; t += 20'000) {
        const int n = inFlightAt(truth, t);
        most = std::max(most, n);
        exact += n == w.expected ? 1 : 0;
        ++samples;
    }
    // Between a stream's end and its slot's next request the server briefly
    // holds one fewer; never more than the setting.
    if (most != w.expected || exact * 2 < samples)
        return QStringLiteral("concurrency %1: the server held at most %2, exactly %1 at %3 of %4 instants")
            .arg(w.expected)
            .arg(most)
            .arg(exact)
            .arg(samples);
    return {};
}

} // namespace

class TestSteering : public QObject {
    Q_OBJECT
private slots:
    void stdinCommandsMakeSegmentsTheServerSees()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        const QString out = dir.filePath(QStringLiteral("steered.jsonl"));
        SimProcess sim;
        QString error;
        QVERIFY2(startSim(sim, truthPath, &error), qPrintable(error));

        QProcess client;
        QVERIFY(startClient(client, sim.port(),
            { QStringLiteral("--concurrency"), QStringLiteral("4"), QStringLiteral("--duration"),
                QStringLiteral("120") },
            out));
        QByteArray stderrText;
        QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "[1/1] adhoc"), stderrText.constData(), 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(armStarted(out), qPrintable(out), 30000);

        std::vector<std::pair<int, qint64>> commands; // setting, when it was sent
        // A setting has run a while once the server has ended three times its streams' worth of
        // requests that arrived a second or more after the command (the window checked below),
        // read from the live truth log (flushed every 100 ms); before any command, the arm's own 4.
        const auto ranAWhile = [&truthPath](const std::vector<std::pair<int, qint64>>& sent) {
            const int streams = sent.empty() ? 4 : sent.back().first;
            const qint64 settledUs = sent.empty() ? 0 : sent.back().second + 1'000'000;
            const std::vector<kssim::TruthRecord> seen = kssim::readTruthLog(truthPath);
            return std::count_if(seen.begin(), seen.end(), [settledUs](const kssim::TruthRecord& r) {
                return r.arrivalUs >= settledUs && r.endUs >= 0;
            }) >= 3 * streams;
        };
        for (const int setting : { 4, 32, 8 }) {
            QTRY_VERIFY_WITH_TIMEOUT(ranAWhile(commands), 60000);
            commands.emplace_back(setting, steadyNowUs());
            client.write(QByteArray("concurrency ") + QByteArray::number(setting) + '\n');
        }
        QTRY_VERIFY_WITH_TIMEOUT(ranAWhile(commands), 60000);
        const qint64 stopUs = steadyNowUs();
        client.write("stop\n");
        QVERIFY(client.waitForFinished(60000));
        stderrText += client.readAllStandardError();
        QVERIFY2(client.exitCode() == 0, stderrText.constData());
        QCOMPARE(sim.terminate(), 0); // completes the truth log

        const std::vector<kssim::TruthRecord> truth = kssim::readTruthLog(truthPath);
        QVERIFY(!truth.empty());
        for (std::size_t i = 0; i < commands.size(); ++i) {
            const qint64 next = i + 1 < commands.size() ? commands[i + 1].second : stopUs;
            const QString problem = checkWindow(truth, { commands[i].first, commands[i].second + 1'000'000, next });
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }

        // One summarized segment per setting; "concurrency 4" was the setting
        // in force, so no segment of its own.
        RunFile file;
        QVERIFY(readRunFile(out, &file, &error));
        std::map<QString, const RunData*> runs;
        for (const RunData& run : file.runs)
            runs[run.run] = &run;
        const std::vector<std::pair<QString, int>> expected { { QStringLiteral("adhoc"), 4 },
            { QStringLiteral("adhoc~c32"), 32 }, { QStringLiteral("adhoc~c8"), 8 } };
        QCOMPARE(runs.size(), expected.size());
        std::set<qint64> ids;
        for (const auto& [name, setting] : expected) {
            QVERIFY2(runs.count(name), qPrintable(name));
            const RunData& run = *runs[name];
            QVERIFY2(run.summary.has_value(), qPrintable(name));
            QCOMPARE(run.summary->sweep.value("value", -1), setting);
            QCOMPARE(run.summary->sweep.value("over", std::string()), std::string("concurrency"));
            QCOMPARE(run.summary->requests.value_or(-1), qint64(run.requests.size()));
            QVERIFY(run.requests.size() > std::size_t(setting)); // each setting ran a while
            if (setting != 4) {
                QCOMPARE(run.info["control"]["value"].get<int>(), setting);
                QVERIFY(run.info["control"]["t_us"].get<qint64>() > 0);
            }
        }
        // The request ids, from the file's request lines.
        QFile lines(out);
        QVERIFY(lines.open(QIODevice::ReadOnly));
        while (!lines.atEnd()) {
            const QByteArray line = lines.readLine();
            const nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
            if (j.value("type", std::string()) == "request")
                QVERIFY2(ids.insert(j.value("id", qint64(-1))).second, line.constData());
        }
        // Every request the server saw is in exactly one segment.
        std::set<qint64> seen;
        for (const kssim::TruthRecord& r : truth)
            if (kssim::requestIndexOf(r) >= 0)
                seen.insert(kssim::requestIndexOf(r));
        QCOMPARE(seen, ids);

        // compare treats the segments as the steps of one sweep over concurrency.
        const nlohmann::json compare = test::comparedChecked(file, {}, &error);
        const auto sweep = std::find_if(compare.begin(), compare.end(),
            [](const nlohmann::json& a) { return a.value("arm", std::string()) == "adhoc (steered)"; });
        QVERIFY2(sweep != compare.end(), compare.dump().c_str());
        QCOMPARE((*sweep)["sweep"]["over"].get<std::string>(), std::string("concurrency"));
        QCOMPARE((*sweep)["sweep"]["points"]["adhoc"].size(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestSteering)
#include "tst_steering.moc"
