// Steering a rate arm live: `knobscope run --rate ... --control stdin` fed
// `rate 2`, `rate 8`, `rate 4` makes one summarized segment ARM~rR per setting,
// and knobscope-sim's truth log (when the server itself saw each request
// arrive) shows the new rate from the command on. Also: the wrong kind of
// setting is refused, and the arm's request count and duration still bound
// the arm across segments.
#include "store/runfile.h"
#include "truthlog.h"

#include "sim/simprocess.h"
#include "steeredrun.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cmath>
#include <map>
#include <set>

using namespace ks;
using namespace steered;

namespace {

struct RequestLine {
    QString run;
    qint64 id = -1;
    qint64 tSchedUs = 0; ///< on the arm's clock
};

/// The request lines of a run file as written so far (a run still going too).
std::vector<RequestLine> requestLines(const QString& path)
{
    std::vector<RequestLine> lines;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        const nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
        if (j.is_object() && j.value("type", std::string()) == "request")
            lines.push_back({ QString::fromStdString(j.value("run", std::string())), j.value("id", qint64(-1)),
                j.value("t_sched_us", qint64(0)) });
    }
    return lines;
}

int countOf(const std::vector<RequestLine>& lines, const QString& run)
{
    return int(std::count_if(lines.begin(), lines.end(), [&run](const RequestLine& r) { return r.run == run; }));
}

} // namespace

class TestSteerRate : public QObject {
    Q_OBJECT
private slots:
    void rateCommandsMakeSegmentsAtTheirRate()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        const QString out = dir.filePath(QStringLiteral("steered.jsonl"));
        SimProcess sim;
        QString error;
        QVERIFY2(startSim(sim, truthPath, &error), qPrintable(error));
        QProcess client;
        QVERIFY(startClient(client, sim.port(),
            { QStringLiteral("--rate"), QStringLiteral("1"), QStringLiteral("--duration"), QStringLiteral("180") },
            out));
        QByteArray stderrText;
        QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "[1/1] adhoc"), stderrText.constData(), 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(armStarted(out), qPrintable(out), 30000);

        // A rate arm takes a rate, not a concurrency: refused, and the arm goes on.
        client.write("concurrency 8\n");
        QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "'concurrency 8' ignored: this arm sends at a rate"),
            stderrText.constData(), 10000);

        // Each setting runs until about 9 s of its requests are in the file (a
        // condition, not a sleep: a slow machine gets the same count of arrivals).
        const std::vector<double> settings { 2, 8, 4 };
        std::vector<qint64> commands; // when each was sent, on the truth log's clock
        for (const double rate : settings) {
            const QString segment = QStringLiteral("adhoc~r%1").arg(rate);
            commands.push_back(steadyNowUs());
            client.write(QByteArray("rate ") + QByteArray::number(rate) + '\n');
            QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "control: rate " + QByteArray::number(rate) + '\n'),
                stderrText.constData(), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(countOf(requestLines(out), segment) >= int(10 * rate), 60000);
        }
        const qint64 stopUs = steadyNowUs();
        client.write("stop\n");
        QVERIFY(client.waitForFinished(60000));
        stderrText += client.readAllStandardError();
        QVERIFY2(client.exitCode() == 0, stderrText.constData());
        QCOMPARE(sim.terminate(), 0); // completes the truth log

        RunFile file;
        QVERIFY(readRunFile(out, &file, &error));
        std::map<QString, const RunData*> runs;
        for (const RunData& run : file.runs)
            runs[run.run] = &run;
        QCOMPARE(runs.size(), settings.size() + 1);
        QVERIFY(runs.count(QStringLiteral("adhoc")));
        QCOMPARE(runs[QStringLiteral("adhoc")]->summary.value().sweep.value("value", -1.0), 1.0);
        const std::vector<RequestLine> lines = requestLines(out);
        const std::vector<kssim::TruthRecord> truth = kssim::readTruthLog(truthPath);
        QVERIFY(!truth.empty());
        double from = 1;
        for (std::size_t i = 0; i < settings.size(); ++i) {
            const double rate = settings[i];
            const QString name = QStringLiteral("adhoc~r%1").arg(rate);
            QVERIFY2(runs.count(name), qPrintable(name));
            const RunData& run = *runs[name];
            // The run line's control, in both readings, and the segment's own summary.
            const nlohmann::json& control = run.info["control"];
            QCOMPARE(control["kind"].get<std::string>(), std::string("rate"));
            QCOMPARE(control["value"].get<double>(), rate);
            QCOMPARE(control["rate"].get<double>(), rate);
            QCOMPARE(control["from"].get<double>(), from);
            const qint64 controlUs = control["t_us"].get<qint64>();
            QVERIFY(controlUs > 0);
            QVERIFY2(run.summary.has_value(), qPrintable(name));
            QCOMPARE(run.summary->sweep.value("over", std::string()), std::string("rate"));
            QCOMPARE(run.summary->sweep.value("value", -1.0), rate);
            QCOMPARE(run.summary->requests.value_or(-1), qint64(countOf(lines, name)));
            from = rate;

            // The new arrivals start after the command, counted from it: a request of the
            // segment planned before it is an old arrival sent late, at most one at these rates.
            const auto early = std::count_if(lines.begin(), lines.end(),
                [&](const RequestLine& r) { return r.run == name && r.tSchedUs < controlUs; });
            QVERIFY2(early <= 1, qPrintable(QStringLiteral("%1: %2 planned before the command").arg(name).arg(early)));

            // The offered rate the server saw, from a second after the command to the next.
            const qint64 t0 = run.info["t0_monotonic_us"].get<qint64>();
            const qint64 windowFrom = commands[i] + 1'000'000;
            const qint64 windowTo = i + 1 < commands.size() ? commands[i + 1] : stopUs;
            const auto arrived = std::count_if(truth.begin(), truth.end(), [&](const kssim::TruthRecord& r) {
                return kssim::requestIndexOf(r) >= 0 && r.arrivalUs >= windowFrom && r.arrivalUs < windowTo;
            });
            const auto planned = std::count_if(lines.begin(), lines.end(),
                [&](const RequestLine& r) { return r.tSchedUs + t0 >= windowFrom && r.tSchedUs + t0 < windowTo; });
            // The server saw what the schedule planned: the counts differ only by a
            // request planned at a window's edge and arriving just across it.
            QVERIFY2(std::abs(arrived - planned) <= 2,
                qPrintable(QStringLiteral("%1: the server saw %2 arrivals, the schedule planned %3")
                               .arg(name)
                               .arg(arrived)
                               .arg(planned)));
            // Poisson arrivals: the count in a window of T seconds has mean R*T and standard
            // deviation sqrt(R*T), so over these ~9 s a correct rate reads 18 +- 4 at 2 req/s
            // (24 %), 36 +- 6 at 4 and 72 +- 8.5 at 8 (12 %): 5 % cannot be asserted here
            // (bench/steer_rate.py measures it over minutes). Four standard deviations
            // (plus one for the window's edges) fail a correct run about once in 10^4,
            // and still catch a rate left at the setting before (2 against 8, 8 against 4).
            const double windowS = double(windowTo - windowFrom) / 1e6;
            const double expected = rate * windowS;
            const double band = 4 * std::sqrt(expected) + 1;
            QVERIFY2(std::abs(double(arrived) - expected) <= band,
                qPrintable(QStringLiteral("%1: %2 arrivals in %3 s, expected %4 +- %5")
                               .arg(name)
                               .arg(arrived)
                               .arg(windowS)
                               .arg(expected)
                               .arg(band)));
        }
        // Every request the server saw is in exactly one segment, once.
        std::set<qint64> ids;
        for (const RequestLine& r : lines)
            QVERIFY2(ids.insert(r.id).second, qPrintable(QString::number(r.id)));
        std::set<qint64> seen;
        for (const kssim::TruthRecord& r : truth)
            if (kssim::requestIndexOf(r) >= 0)
                seen.insert(kssim::requestIndexOf(r));
        QCOMPARE(seen, ids);
    }

    // The arm's bound holds across segments: a request count is the same count
    // in all (ids 0..N-1, none twice), a duration ends the last segment's arrivals.
    void steeredRateKeepsTheArmsBound_data()
    {
        QTest::addColumn<QStringList>("bound");
        QTest::addColumn<int>("requests");
        QTest::newRow("requests") << QStringList { QStringLiteral("--requests"), QStringLiteral("60") } << 60;
        QTest::newRow("duration") << QStringList { QStringLiteral("--duration"), QStringLiteral("3") } << 0;
    }
    void steeredRateKeepsTheArmsBound()
    {
        QFETCH(QStringList, bound);
        QFETCH(int, requests);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("bound.jsonl"));
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b") }, &error), qPrintable(error));
        QProcess client;
        QVERIFY(startClient(
            client, sim.port(), QStringList { QStringLiteral("--rate"), QStringLiteral("10") } + bound, out));
        QByteArray stderrText;
        QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "[1/1] adhoc"), stderrText.constData(), 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(armStarted(out), qPrintable(out), 30000);
        client.write("rate 40\n");
        QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "control: rate 40\n"), stderrText.constData(), 10000);
        client.closeWriteChannel();
        QVERIFY(client.waitForFinished(60000));
        stderrText += client.readAllStandardError();
        QVERIFY2(client.exitCode() == 0, stderrText.constData());

        RunFile file;
        QVERIFY(readRunFile(out, &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(2));
        QCOMPARE(file.runs[1].run, QStringLiteral("adhoc~r40"));
        const std::vector<RequestLine> lines = requestLines(out);
        QVERIFY(countOf(lines, QStringLiteral("adhoc~r40")) > 0);
        std::set<qint64> ids;
        for (const RequestLine& r : lines) {
            QVERIFY2(ids.insert(r.id).second, qPrintable(QString::number(r.id)));
            QVERIFY(r.tSchedUs < 3'000'000 || requests > 0);
        }
        if (requests > 0) {
            QCOMPARE(int(ids.size()), requests);
            QCOMPARE(*ids.rbegin(), qint64(requests - 1));
        } else {
            // 3 s at 10 and then 40 req/s: well over the 30 the unsteered arm plans.
            QVERIFY2(ids.size() > 45, qPrintable(QString::number(ids.size())));
        }
    }

    // A concurrency arm takes a concurrency, not a rate.
    void rateOnAConcurrencyArmIsRefused()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("closed.jsonl"));
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b") }, &error), qPrintable(error));
        QProcess client;
        QVERIFY(startClient(client, sim.port(),
            { QStringLiteral("--concurrency"), QStringLiteral("2"), QStringLiteral("--duration"),
                QStringLiteral("60") },
            out));
        QByteArray stderrText;
        QTRY_VERIFY2_WITH_TIMEOUT(readUntil(client, stderrText, "[1/1] adhoc"), stderrText.constData(), 30000);
        QTRY_VERIFY2_WITH_TIMEOUT(armStarted(out), qPrintable(out), 30000);
        client.write("rate 4\nstop\n");
        QVERIFY(client.waitForFinished(60000));
        stderrText += client.readAllStandardError();
        QVERIFY2(client.exitCode() == 0, stderrText.constData());
        QVERIFY2(
            stderrText.contains("'rate 4' ignored: this arm keeps a number of streams open"), stderrText.constData());
        RunFile file;
        QVERIFY(readRunFile(out, &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(1)); // no segment
    }
};

QTEST_GUILESS_MAIN(TestSteerRate)
#include "tst_steerrate.moc"
