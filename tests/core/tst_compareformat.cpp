// Every place compare's intervals appear says how they were made: the
// Markdown and CSV of `compare`, from comparison JSON built here by hand, and
// which A/A calibration a comparison uses (compare --calibration, the spec's
// "calibration").
#include "compare/calibrationlookup.h"
#include "compare/compareformat.h"
#include "compare/intervalnotes.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using json = nlohmann::json;

namespace {

// Baseline "a" and configuration "b" of one arm, b's TTFT p50 ratio 1.30 [1.20-1.40] and
// TTFT p99 1.04 [0.95-1.13]; `run_to_run` as compareRuns writes it for `method`.
json armOf(const json& runToRun, bool significant)
{
    json a = { { "config", "a" }, { "ttft_ms", { { "p50", 100.0 }, { "p99", 200.0 } } },
        { "ratio", { { "ttft_ms", { { "p50", 1.0 }, { "p99", 1.0 } } } } }, { "errors", 0 }, { "error_rate", 0.0 },
        { "max_waiting", 3 }, { "req_per_s", 10.0 }, { "out_tok_per_s", 100.0 }, { "goodput_req_per_s", 10.0 },
        { "tpot_ms", nullptr }, { "itl_ms", nullptr }, { "e2e_ms", nullptr } };
    json b = a;
    b["config"] = "b";
    b["ttft_ms"] = { { "p50", 130.0 }, { "p99", 208.0 } };
    b["ratio"] = { { "ttft_ms", { { "p50", 1.30 }, { "p99", 1.04 } } }, { "req_per_s", 1.0 } };
    b["ratio_ci95"] = { { "ttft_ms", { { "p50", { 1.20, 1.40 } }, { "p99", { 0.95, 1.13 } } } },
        { "method", runToRun.value("method", std::string()) } };
    b["significant"] = { { "ttft_ms", { { "p50", significant }, { "p99", false } } } };
    b["run_to_run"] = runToRun;
    return { { "arm", "stress" }, { "baseline", "a" }, { "gentle", false }, { "configs", { a, b } } };
}

json rounds(int n, double confidence = 0.95)
{
    return { { "measured", true }, { "method", "rounds" }, { "rounds", n }, { "confidence", confidence },
        { "note", "95 % intervals across paired rounds (Student's t over the rounds)" } };
}

json withinRun()
{
    return { { "measured", false }, { "method", "within-run" }, { "rounds", 1 }, { "confidence", 0.95 },
        { "note", "95 % intervals within one run; run-to-run not measured: add repeats or calibrate" } };
}

QStringList csvFields(const QString& line)
{
    return line.split(QLatin1Char(','));
}

// The lines of `file` (the fixture) that belong to run `run`, renamed `as`.
QByteArray linesOfRun(const QString& file, const std::string& run, const std::string& as)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    QByteArray out;
    while (!in.atEnd()) {
        json line = json::parse(in.readLine().toStdString());
        if (line.value("run", std::string()) != run)
            continue;
        line["run"] = as;
        out += QByteArray::fromStdString(line.dump()) + '\n';
    }
    return out;
}

QByteArray experimentLine(const QString& file, const json& calibration)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file));
    json line = json::parse(in.readLine().toStdString());
    if (!calibration.is_null())
        line["spec"]["calibration"] = calibration;
    return QByteArray::fromStdString(line.dump()) + '\n';
}

void writeFile(const QString& path, const QByteArray& text)
{
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
}

const QString kFixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");

// Three runs of the fixture's mns2/burst: an A/A calibration of one configuration.
QByteArray calibrationText()
{
    QByteArray text = experimentLine(kFixture, json());
    for (const char* run : { "mns2/burst", "mns2/burst#2", "mns2/burst#3" })
        text += linesOfRun(kFixture, "mns2/burst", run);
    return text;
}

} // namespace

class TestCompareFormat : public QObject {
    Q_OBJECT
private slots:
    void confidenceInWords()
    {
        QCOMPARE(confidenceText(0.95), QStringLiteral("95 %"));
        QCOMPARE(confidenceText(1 - 0.05 / 9), QStringLiteral("99.4 %"));
        QCOMPARE(confidenceText(0.9995), QStringLiteral("99.95 %")); // never "100.0 %"
    }

    void roundsSayHowManyAndStarTheSignificant()
    {
        json arm = armOf(rounds(3), true);
        arm["configs"][1]["rounds_needed"] = { { "for", 0.05 }, { "ttft_ms", { { "p99", 9 } } } };
        const QString md = compareMarkdown(json::array({ arm }));
        QVERIFY2(md.contains(QStringLiteral("130.0 (1.30x [1.20-1.40]*)")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("208.0 (1.04x [0.95-1.13])")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("b: 95 % intervals across 3 paired rounds; about 9 paired rounds would "
                                            "resolve a 5 % difference in TTFT p99.")),
            qPrintable(md));
        QVERIFY(!md.contains(QStringLiteral("widened by the run-to-run spread")));
        QVERIFY(!md.contains(QStringLiteral("Welch")));
    }

    // One run a side: the bootstrap may exclude 1, but no * without the run-to-run spread.
    void oneRunIsNeverStarred()
    {
        json arm = armOf(withinRun(), false);
        arm["configs"][1]["within_run_significant"] = { { "ttft_ms", { { "p50", true }, { "p99", false } } } };
        const QString md = compareMarkdown(json::array({ arm }));
        QVERIFY2(md.contains(QStringLiteral("130.0 (1.30x [1.20-1.40])")), qPrintable(md));
        QVERIFY2(!md.contains(QStringLiteral("]*")), qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral(
                     "b: 95 % intervals within one run; run-to-run not measured: add repeats or calibrate.")),
            qPrintable(md));
        // A note that says more than the method (a calibration that did not match) is kept.
        arm["configs"][1]["run_to_run"]["note"] = "95 % intervals within one run; run-to-run not measured: add "
                                                  "repeats or calibrate (the calibration does not speak for it: the "
                                                  "host differs)";
        QVERIFY(compareMarkdown(json::array({ arm }))
                    .contains(QStringLiteral("b: 95 % intervals within one run; run-to-run not measured: add repeats "
                                             "or calibrate (the calibration does not speak for it: the host "
                                             "differs).")));
    }

    void calibrationIsCited()
    {
        json r2r = { { "measured", true }, { "method", "calibrated" }, { "rounds", 1 }, { "confidence", 0.95 },
            { "calibration",
                { { "file", "/data/cal.jsonl" }, { "date", "2026-12-04T10:00:00Z" }, { "runs", 6 },
                    { "config", "mns32" } } } };
        const QString md = compareMarkdown(json::array({ armOf(r2r, true) }));
        QVERIFY2(md.contains(QStringLiteral(
                     "b: 95 % intervals with A/A calibration: 6 runs of mns32, 2026-12-04 (cal.jsonl).")),
            qPrintable(md));
    }

    void repeatsUntilDecidedSayTheirConfidence()
    {
        const QString text = intervalMethodText(armOf(rounds(5, 1 - 0.05 / 9), true)["configs"][1]);
        QCOMPARE(text,
            QStringLiteral("intervals across 5 paired rounds at 99.4 % per look, 9 looks (repeats until decided)"));
        json unpaired = rounds(2);
        unpaired["paired"] = false; // what says unpaired: the note is for people
        unpaired["note"] = "95 % intervals across 2 unpaired rounds (Student's t over the rounds)";
        QCOMPARE(intervalMethodText(armOf(unpaired, false)["configs"][1]),
            QStringLiteral("95 % intervals across 2 unpaired rounds"));
    }

    void steadyStateAndUnsettled()
    {
        json arm = armOf(rounds(3), false);
        arm["configs"][0]["steady"]
            = { { "method", "MSER-5" }, { "dropped", 32 }, { "requests", 256 }, { "settled", true } };
        arm["configs"][1]["steady"]
            = { { "method", "MSER-5" }, { "dropped", 0 }, { "requests", 256 }, { "settled", false } };
        arm["unsettled"] = { "b" };
        const QStringList lines = intervalLines(arm);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0], QStringLiteral("a: dropped 32 of 256 requests as warm-up (MSER-5)."));
        QCOMPARE(lines[1],
            QStringLiteral("b: 95 % intervals across 3 paired rounds; TTFT still moving at the end of the run: not "
                           "steady; its intervals say little."));
        QVERIFY(isUnsettled(arm, arm["configs"][1]));
        QVERIFY(!isUnsettled(arm, arm["configs"][0]));
    }

    // Several undecided statistics on one line, the same count said once.
    void roundsNeededListsTheTablesStatistics()
    {
        json config = armOf(rounds(3), false)["configs"][1];
        config["rounds_needed"] = { { "for", 0.05 }, { "ttft_ms", { { "p50", 12 }, { "p95", 3 }, { "p99", 7 } } },
            { "tpot_ms", { { "p50", 7 }, { "p99", nullptr } } }, { "itl_ms", { { "p50", nullptr } } } };
        QCOMPARE(roundsNeededText(config),
            QStringLiteral("about 7 paired rounds would resolve a 5 % difference in TTFT p99 and TPOT p50, 12 in "
                           "TTFT p50"));
        QCOMPARE(roundsNeeded(config, "ttft_ms", "p95"), std::optional<int>(3)); // not a column, but there
        QVERIFY(!roundsNeeded(config, "tpot_ms", "p99")); // null: cannot say
        // Undecided with rounds enough to see 5 %: whatever difference is there is smaller.
        config["rounds_needed"]["itl_ms"]["p50"] = 2;
        QCOMPARE(roundsNeededText(config),
            QStringLiteral("about 7 paired rounds would resolve a 5 % difference in TTFT p99 and TPOT p50, 12 in "
                           "TTFT p50; the 3 rounds run would already resolve a 5 % difference in ITL p50: any "
                           "difference left there is likely smaller"));
        QCOMPARE(roundsNeededText(config, "itl_ms", "p50"),
            QStringLiteral("the 3 rounds run would already resolve a 5 % difference: any difference left there is "
                           "likely smaller"));
    }

    void csvAppendsTheNewColumns()
    {
        json arm = armOf(withinRun(), false);
        arm["configs"][1]["rounds_needed"] = { { "for", 0.05 }, { "ttft_ms", { { "p99", 9 } } } };
        const QStringList lines = compareCsv(json::array({ arm })).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines[0],
            QStringLiteral("arm,config,metric,stat,value,ratio,ratio_low,ratio_high,significant,method,"
                           "run_to_run_measured,rounds_needed"));
        for (const QString& line : lines)
            QVERIFY2(csvFields(line).size() == 12, qPrintable(line));
        QVERIFY(lines.contains(QStringLiteral("stress,b,ttft_ms,p50,130.0000,1.3000,1.2000,1.4000,false,within-run,"
                                              "false,")));
        QVERIFY(lines.contains(QStringLiteral("stress,b,ttft_ms,p99,208.0000,1.0400,0.9500,1.1300,false,within-run,"
                                              "false,9")));
        QVERIFY(lines.contains(QStringLiteral("stress,b,req_per_s,,10.0000,1.0000,,,,,,")));
    }

    // Output from before these fields: nothing said about the method, nothing old either.
    void olderComparisonsSayNothing()
    {
        json arm = armOf(json::object(), true);
        arm["configs"][1].erase("run_to_run");
        arm["configs"][1]["ratio_ci95"]["method"] = "block-bootstrap+run-to-run";
        arm["configs"][1]["repeat_ratio_ci95"] = { { "ttft_ms", { { "p50", { 1.1, 1.5 } } } } };
        const QString md = compareMarkdown(json::array({ arm }));
        QVERIFY2(md.contains(QStringLiteral("130.0 (1.30x [1.20-1.40]*)")), qPrintable(md)); // no "repeats [..]"
        QVERIFY(intervalLines(arm).isEmpty());
        QVERIFY(!md.contains(QStringLiteral("block-bootstrap")));
        QVERIFY(compareCsv(json::array({ arm })).contains(QStringLiteral("1.4000,true,,,\n")));
    }

    void calibrationLookup()
    {
        QTemporaryDir dir;
        const QString calibration = dir.filePath(QStringLiteral("cal.jsonl"));
        writeFile(calibration, calibrationText());
        RunFile file;
        QString error;
        QVERIFY2(readRunFile(kFixture, &file, &error), qPrintable(error));

        // No --calibration and none named: none, and nothing to say.
        CalibrationLookup found = lookUpCalibration(QString(), file, kFixture);
        QVERIFY(!found.calibration && found.note.isEmpty() && found.error.isEmpty());

        found = lookUpCalibration(calibration, file, kFixture);
        QVERIFY2(found.error.isEmpty(), qPrintable(found.error));
        QVERIFY(found.calibration);
        QCOMPARE(found.calibration->runs, 3);
        QCOMPARE(found.calibration->config, QStringLiteral("mns2"));

        // A file that is no calibration, or none at all, is an error naming it.
        found = lookUpCalibration(kFixture, file, kFixture);
        QVERIFY(!found.calibration);
        QVERIFY2(found.error.startsWith(QStringLiteral("--calibration ") + kFixture), qPrintable(found.error));
        found = lookUpCalibration(dir.filePath(QStringLiteral("none.jsonl")), file, kFixture);
        QVERIFY2(found.error.contains(QStringLiteral("none.jsonl")), qPrintable(found.error));

        // The spec's "calibration", relative to the run file's folder.
        const QString run = dir.filePath(QStringLiteral("run.jsonl"));
        writeFile(run, experimentLine(kFixture, "cal.jsonl") + linesOfRun(kFixture, "mns2/burst", "mns2/burst"));
        RunFile named;
        QVERIFY2(readRunFile(run, &named, &error), qPrintable(error));
        QDir::setCurrent(QDir::tempPath()); // not the run file's folder
        found = lookUpCalibration(QString(), named, run);
        QVERIFY2(found.calibration && found.error.isEmpty(), qPrintable(found.error));
        QCOMPARE(found.path, calibration);
        // Named but not there: a note, and the comparison goes on without.
        QVERIFY(QFile::remove(calibration));
        found = lookUpCalibration(QString(), named, run);
        QVERIFY(!found.calibration && found.error.isEmpty());
        QVERIFY2(found.note.contains(QStringLiteral("names the calibration cal.jsonl, which is not there")),
            qPrintable(found.note));
    }

    void compareCalibrationFlag()
    {
        QTemporaryDir dir;
        const QString calibration = dir.filePath(QStringLiteral("cal.jsonl"));
        writeFile(calibration, calibrationText());
        auto compare = [](const QStringList& extra, QString* err) {
            QProcess p;
            p.start(QStringLiteral(KNOBSCOPE_BIN),
                QStringList {
                    QStringLiteral("compare"), kFixture, QStringLiteral("--resamples"), QStringLiteral("1000") }
                    + extra);
            p.waitForFinished(120000);
            *err = QString::fromUtf8(p.readAllStandardError());
            return p.exitCode();
        };
        QString err;
        QCOMPARE(compare({ QStringLiteral("--calibration"), calibration }, &err), 0);
        const QString missing = dir.filePath(QStringLiteral("missing.jsonl"));
        QCOMPARE(compare({ QStringLiteral("--calibration"), missing }, &err), 2);
        QVERIFY2(err.contains(QStringLiteral("--calibration ") + missing), qPrintable(err));
        QCOMPARE(compare({ QStringLiteral("--calibration"), kFixture }, &err), 2); // two configurations
        QVERIFY2(err.contains(QStringLiteral("not an A/A calibration")), qPrintable(err));

        // export takes it too, and refuses a file that is not there the same way.
        QProcess exporting;
        exporting.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("export"), kFixture, QStringLiteral("--calibration"), missing, QStringLiteral("--table"),
                dir.filePath(QStringLiteral("table.md")) });
        exporting.waitForFinished(120000);
        QCOMPARE(exporting.exitCode(), 2);
        QVERIFY(
            QString::fromUtf8(exporting.readAllStandardError()).contains(QStringLiteral("--calibration ") + missing));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("table.md"))));
    }
};

QTEST_GUILESS_MAIN(TestCompareFormat)
#include "tst_compareformat.moc"
