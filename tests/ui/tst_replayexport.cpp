// Saved runs in the dashboard: replay fills the pages with the numbers
// `knobscope compare` gives, broken files open with notes, the drift matrix is
// a well-behaved model, and exported charts are valid files of the asked size.
#include "charts/barchart.h"
#include "charts/cdfplot.h"
#include "charts/exportablechart.h"
#include "charts/timeseriesplot.h"
#include "compare/compareformat.h"
#include "compare/comparisonwriter.h"
#include "feeds/runfileloader.h"
#include "metrics/loghistogram.h"
#include "models/comparetablemodel.h"
#include "models/driftmatrixmodel.h"
#include "pages/comparepage.h"
#include "pages/driftpage.h"
#include "pages/livepage.h"
#include "window/mainwindow.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <cmath>
#include <set>

using namespace ks;
using nlohmann::json;

namespace {

const QString kFixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");

std::shared_ptr<const LoadedRunFile> loadAndWait(RunFileLoader& loader, const QString& path)
{
    std::shared_ptr<const LoadedRunFile> last;
    QObject::connect(&loader, &RunFileLoader::loaded, [&last](std::shared_ptr<const LoadedRunFile> r) { last = r; });
    loader.load(path);
    // Until the file is loaded with its intervals, or has failed; the caller checks which.
    // A timeout leaves `last` without intervals or an error, which the caller's checks then fail on.
    if (!QTest::qWaitFor([&last] { return last && (last->intervals || !last->error.isEmpty()); }, 120000))
        qWarning("loadAndWait: %s gave no result with intervals within 120 s", qPrintable(path));
    return last;
}

json compareJsonFromCli(const QString& path)
{
    QProcess p;
    p.start(QStringLiteral(KNOBSCOPE_BIN), { QStringLiteral("compare"), path, QStringLiteral("--json") });
    p.waitForFinished(120000);
    return json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ProbeOutput output(const char* id, const QByteArray& text)
{
    ProbeOutput o;
    o.probe = QString::fromUtf8(id);
    o.ok = true;
    o.content = text;
    o.contentSha256 = QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex();
    return o;
}

} // namespace

class TestReplayExport : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void comparePageShowsWhatTheCliPrints()
    {
        RunFileLoader loader;
        ComparePage page(&loader);
        const auto result = loadAndWait(loader, kFixture);
        QVERIFY(result && result->intervals && result->error.isEmpty());
        page.setResult(result);
        const json cli = compareJsonFromCli(kFixture);
        QVERIFY(cli.is_array() && !cli.empty());
        QCOMPARE(comparisonToJson(result->comparison).dump(), cli.dump()); // the same core call, the same numbers

        const json& arm = cli[0];
        CompareTableModel* table = page.table();
        QCOMPARE(table->rowCount(), int(arm["configs"].size()));
        for (int row = 0; row < table->rowCount(); ++row) {
            const json& config = arm["configs"][std::size_t(row)];
            const bool baseline = config["config"] == arm["baseline"];
            for (int c = 0; c < int(std::size(kCompareColumns)); ++c)
                QCOMPARE(table->data(table->index(row, c + 1)).toString(),
                    compareCell(config, kCompareColumns[c], baseline));
        }
        // Bars carry the core's percentiles.
        QCOMPARE(page.bars()->sets().size(), qsizetype(arm["configs"].size()));
        QCOMPARE(page.bars()->sets()[1].values[0], arm["configs"][1]["ttft_ms"]["p50"].get<double>());
        QCOMPARE(page.cdf()->curveCount(), int(arm["configs"].size()));
    }

    // Yesterday's vLLM result (aggregates only) against a vLLM run with per-request data:
    // bars and ratios for both, intervals only where there are requests, and the page says why.
    void summaryOnlyImportOnTheComparePage()
    {
        const QString detailed = QStringLiteral(KNOBSCOPE_TEST_DATA "/import/vllm-detailed.json");
        const QString summary = QStringLiteral(KNOBSCOPE_TEST_DATA "/import/vllm-summary.json");
        RunFileLoader loader;
        ComparePage page(&loader);
        std::shared_ptr<const LoadedRunFile> last;
        connect(&loader, &RunFileLoader::loaded, this, [&last](std::shared_ptr<const LoadedRunFile> r) { last = r; });
        loader.load(QStringList { detailed, summary });
        QTRY_VERIFY_WITH_TIMEOUT(last && last->intervals, 120000);
        QVERIFY(last->error.isEmpty());
        page.setResult(last);
        const json compare = comparisonToJson(last->comparison);
        QCOMPARE(compare.size(), std::size_t(1)); // one arm each: compared as one
        const json& arm = compare[0];
        CompareTableModel* table = page.table();
        QCOMPARE(table->rowCount(), 2);
        QVERIFY(table->data(table->index(1, 0)).toString().contains(QLatin1String("summary only")));
        QVERIFY(table->data(table->index(1, 1), Qt::ToolTipRole).toString().contains(QLatin1String("no 95 %")));
        QVERIFY(!table->data(table->index(0, 0)).toString().contains(QLatin1String("summary only")));
        QCOMPARE(page.bars()->sets()[1].values[0], 71.5); // vLLM's own median TTFT
        QVERIFY(arm["configs"][1]["ratio"]["ttft_ms"].contains("p50"));
        QVERIFY(arm["configs"][1]["ci95"].empty());
        QVERIFY(page.findChild<QLabel*>() != nullptr);
        bool noted = false;
        for (const QLabel* label : page.findChildren<QLabel*>())
            noted = noted || label->text().contains(QLatin1String("without intervals"));
        QVERIFY(noted);

        // The CLI prints the tool's own figures in milliseconds.
        QProcess p;
        p.start(QStringLiteral(KNOBSCOPE_BIN), { QStringLiteral("report"), summary, QStringLiteral("--json") });
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        const json report = json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
        QVERIFY(report.is_array() && report.size() == 1);
        QCOMPARE(report[0]["ttft_ms"]["p50"].get<double>(), 71.5);
        QCOMPARE(report[0]["tpot_ms"]["p99"].get<double>(), 27.8);
        QCOMPARE(report[0]["imported"]["summary_only"].get<bool>(), true);
        const json cli = compareJsonFromCli(summary);
        QVERIFY(cli.is_array() && cli.size() == 1);
        QCOMPARE(cli[0]["configs"][0]["ttft_ms"]["p99"].get<double>(), 190.4);
        QVERIFY(cli[0].contains("note"));
    }

    void replayFillsTheLivePageAsTheRunDid()
    {
        MainWindow window;
        window.show();
        QSignalSpy ended(&window, &MainWindow::replayEnded);
        window.openRunFile(kFixture);
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().first().toString(), QString()); // no notes for a clean file
        const json cli = compareJsonFromCli(kFixture);
        for (const json& config : cli[0]["configs"]) {
            const QString label = QString::fromStdString(config["config"].get<std::string>());
            // The configuration's line continues into its probe passes: take the burst arm's last point.
            const double burstEnds = window.livePage()->xOf(label + QStringLiteral("/probes"), 0);
            QVector<QPointF> cumulative;
            for (const QPointF& p : window.livePage()->chart(LiveChart::Ttft)->points(label + QStringLiteral("/p50/c")))
                if (p.x() < burstEnds)
                    cumulative << p;
            QVERIFY2(!cumulative.isEmpty(), qPrintable(label));
            // The live cumulative percentile comes from a log-linear histogram: within its stated
            // bound of the whole run's (compare's `raw` where it dropped a warm-up; the live page does not).
            const json& whole = config.contains("raw") ? config["raw"] : config;
            QVERIFY2(std::abs(cumulative.back().y() - whole["ttft_ms"]["p50"].get<double>())
                    <= LogHistogram::kRelativeError * whole["ttft_ms"]["p50"].get<double>(),
                qPrintable(QString::number(cumulative.back().y())));
            // As fast as possible still snapshots every 500 ms of the run's own time, as live did every 100 ms.
            const double runS = cumulative.back().x() - window.livePage()->xOf(label + QStringLiteral("/burst"), 0);
            QVERIFY2(cumulative.size() >= int(runS / 0.5) - 1,
                qPrintable(QStringLiteral("%1 points over %2 s").arg(cumulative.size()).arg(runS)));
        }
        QVERIFY(!window.livePage()->chart(LiveChart::Server)->points(QStringLiteral("mns2/waiting")).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(window.loader()->current() && window.loader()->current()->intervals, 120000);
        QCOMPARE(window.comparePage()->table()->rowCount(), 2);
    }

    void brokenFilesOpenWithNotes()
    {
        QByteArray text = readAll(kFixture);
        QList<QByteArray> lines = text.split('\n');
        lines.insert(12, "{\"type\":\"request\", this is not json");
        const QString corrupt = m_dir.filePath(QStringLiteral("corrupt.jsonl"));
        QFile c(corrupt);
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(lines.join('\n'));
        c.close();
        const QString truncated = m_dir.filePath(QStringLiteral("truncated.jsonl"));
        QFile t(truncated);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(text.left(text.size() * 2 / 3)); // cut mid-line, as a killed writer leaves it
        t.close();

        RunFileLoader loader;
        const auto bad = loadAndWait(loader, corrupt);
        QVERIFY(bad);
        QCOMPARE(bad->file->issues.size(), std::size_t(1));
        QCOMPARE(bad->file->issues[0].line, qint64(13));
        QVERIFY(!bad->comparison.empty()); // the rest is still compared

        RunFileLoader loader2;
        const auto cut = loadAndWait(loader2, truncated);
        QVERIFY(cut);
        QVERIFY(cut->file->truncated);
        QVERIFY(std::any_of(cut->file->runs.begin(), cut->file->runs.end(),
            [](const RunData& r) { return !r.summary; })); // the run that was cut has no summary

        MainWindow window;
        QSignalSpy ended(&window, &MainWindow::replayEnded);
        window.openRunFile(corrupt);
        QVERIFY(ended.wait(60000));
        QVERIFY2(ended.first().first().toString().contains(QStringLiteral("line 13")),
            qPrintable(ended.first().first().toString()));
    }

    // Every field of the first line of each record type set to the wrong type
    // (an object, or a 1 MB string): the dashboard and every command read the
    // rest, name the line and field, and never crash.
    void wrongTypesEverywhereOpenWithNotes_data()
    {
        QTest::addColumn<QByteArray>("wrong");
        QTest::newRow("objects") << QByteArray("{\"k\":1}");
        QTest::newRow("1 MB strings") << QByteArray("\"" + QByteArray(1 << 20, 'x') + "\"");
    }
    void wrongTypesEverywhereOpenWithNotes()
    {
        QFETCH(QByteArray, wrong);
        const json value = json::parse(wrong.toStdString());
        QList<QByteArray> lines = readAll(kFixture).split('\n');
        std::set<std::string> done;
        qint64 runLine = 0;
        for (qsizetype i = 0; i < lines.size(); ++i) {
            json j = json::parse(lines[i].toStdString(), nullptr, false);
            if (!j.is_object() || !done.insert(j.value("type", std::string())).second)
                continue;
            for (auto& [key, field] : j.items()) {
                if (key != "type")
                    field = value;
            }
            if (j["type"] == "run")
                runLine = i + 1;
            lines[i] = QByteArray::fromStdString(j.dump());
        }
        const QString path = m_dir.filePath(QStringLiteral("wrong.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(lines.join('\n'));
        f.close();

        for (const char* command : { "report", "compare", "drift", "export" }) {
            QProcess p;
            QStringList args { QString::fromLatin1(command), path };
            if (qstrcmp(command, "export") == 0)
                args << QStringLiteral("--chart") << QStringLiteral("ttft") << QStringLiteral("--out")
                     << m_dir.filePath(QStringLiteral("wrong.png"));
            p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
            p.start(QStringLiteral(KNOBSCOPE_BIN), args);
            QVERIFY(p.waitForFinished(120000));
            QCOMPARE(p.exitStatus(), QProcess::NormalExit); // no crash
            QVERIFY2(p.exitCode() == 0 || p.exitCode() == 2, command);
            const QString err = QString::fromUtf8(p.readAllStandardError());
            // An object breaks even the run label (the line is skipped); a long string is a
            // valid label, so the run line's object field (knobs) is the one named.
            const QString field = value.is_object() ? QStringLiteral("run.run:") : QStringLiteral("run.knobs:");
            QVERIFY2(err.contains(QStringLiteral("line %1: %2").arg(runLine).arg(field)), qPrintable(err.left(2000)));
        }

        RunFileLoader loader;
        const auto loaded = loadAndWait(loader, path);
        QVERIFY(loaded);
        QVERIFY(!loaded->file->issues.empty());
        MainWindow window;
        QSignalSpy ended(&window, &MainWindow::replayEnded);
        window.openRunFile(path);
        QVERIFY(ended.wait(60000));
        QVERIFY2(ended.first().first().toString().contains(QStringLiteral("line")),
            qPrintable(ended.first().first().toString()));
    }

    void twoFilesCompareSideBySide()
    {
        // A second copy whose probe file was edited (its SHA-256 differs).
        QByteArray text = readAll(kFixture);
        const QByteArray sha = "\"sha256\":\"";
        for (qsizetype at = text.indexOf(sha); at >= 0; at = text.indexOf(sha, at + 1))
            text.replace(at + sha.size(), 4, "beef");
        const QString edited = m_dir.filePath(QStringLiteral("edited.jsonl"));
        QFile f(edited);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();

        RunFileLoader loader;
        std::shared_ptr<const LoadedRunFile> last;
        connect(&loader, &RunFileLoader::loaded, this, [&last](std::shared_ptr<const LoadedRunFile> r) { last = r; });
        loader.load(QStringList { kFixture, kFixture }, {}, false);
        QTRY_VERIFY_WITH_TIMEOUT(last != nullptr, 60000);
        const json compare = comparisonToJson(last->comparison);
        const json& arm = compare[0];
        QCOMPARE(arm["configs"].size(), std::size_t(4));
        QCOMPARE(arm["configs"][2]["config"].get<std::string>(), std::string("mns2 @2"));
        QCOMPARE(arm["configs"][2]["ratio"]["ttft_ms"]["p50"].get<double>(), 1.0); // the same run, from the other file
        QCOMPARE(last->drift.configs.size(), std::size_t(4)); // both files' probe passes
        QVERIFY(last->drift.problems.isEmpty());

        last.reset();
        loader.load(QStringList { kFixture, edited }, {}, false);
        QTRY_VERIFY_WITH_TIMEOUT(last != nullptr, 60000);
        QCOMPARE(last->drift.configs.size(), std::size_t(2)); // the edited set is not compared
        QVERIFY(!last->drift.problems.isEmpty());
        QVERIFY(last->drift.problems.first().contains(QStringLiteral("different probe sets")));
    }

    void driftMatrixIsAWellBehavedModel()
    {
        std::vector<ProbePass> passes(3);
        for (int i = 0; i < 3; ++i) {
            passes[std::size_t(i)].config = QStringLiteral("c");
            passes[std::size_t(i)].model = QStringLiteral("m");
            passes[std::size_t(i)].repeat = i;
        }
        passes[0].outputs = { output("p1", "same text"), output("p2", "one two three") };
        passes[1].outputs = { output("p1", "same text"), output("p2", "one two four") };
        ProbeOutput failed = output("p2", "");
        failed.ok = false;
        passes[2].outputs = { output("p1", "same text"), failed };
        const DriftReport report = analyzeDrift(passes, {});

        DriftPage page;
        QAbstractItemModelTester tester(page.matrix(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(page.filter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.matrix()->setReport(report);
        QCOMPARE(page.matrix()->rowCount(), 2);
        QCOMPARE(page.matrix()->columnCount(), 3);
        QCOMPARE(page.matrix()->index(1, 1).data(DriftMatrixModel::kStateRole).toInt(), int(ProbeState::Changed));
        QCOMPARE(page.matrix()->index(1, 2).data(DriftMatrixModel::kStateRole).toInt(), int(ProbeState::Error));
        page.filter()->setChangedOnly(true);
        QCOMPARE(page.filter()->rowCount(), 1); // p1 never changed
        page.filter()->setChangedOnly(false);
        QCOMPARE(page.filter()->rowCount(), 2);
        page.showCell(1, 1);
        QVERIFY(page.referenceText().contains(QStringLiteral("three")));
        QVERIFY(page.changedText().contains(QStringLiteral("four")));
        page.matrix()->setReport({}); // a reset to empty
        QCOMPARE(page.matrix()->rowCount(), 0);
    }

    void exportedChartsAreValidFiles()
    {
        BarChart chart;
        chart.setData(QStringLiteral("fixture · burst · TTFT (ms) · mns2 vs mns16"),
            { QStringLiteral("p50"), QStringLiteral("p95"), QStringLiteral("p99") },
            { { QStringLiteral("mns2"), Qt::blue, { 1192, 1199, 1200 } },
                { QStringLiteral("mns16"), Qt::red, { 61, 64, 65 } } },
            QStringLiteral("ms"));
        const QSize size(900, 560);
        QString error;
        const QString png = m_dir.filePath(QStringLiteral("c.png"));
        QVERIFY2(exportChart(chart, png, size, &error), qPrintable(error));
        QImage image(png);
        QCOMPARE(image.size(), size);
        QVERIFY(image.pixelColor(5, 5) == QColor(Qt::white)); // drawn on white, not transparent

        const QString svg = m_dir.filePath(QStringLiteral("c.svg"));
        QVERIFY2(exportChart(chart, svg, size, &error), qPrintable(error));
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBox().size(), size); // the drawing's own coordinate size
        const QByteArray svgText = readAll(svg);
        QXmlStreamReader xml(svgText);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(svgText.contains("mns16")); // the legend is text, not pixels

        const QString pdf = m_dir.filePath(QStringLiteral("c.pdf"));
        QVERIFY2(exportChart(chart, pdf, size, &error), qPrintable(error));
        const QByteArray pdfBytes = readAll(pdf);
        QVERIFY(pdfBytes.startsWith("%PDF-"));
        QCOMPARE(pdfBytes.count("/Type /Page\n") + pdfBytes.count("/Type /Page\r") + pdfBytes.count("/Type /Page "),
            qsizetype(1));

        QVERIFY(!exportChart(chart, m_dir.filePath(QStringLiteral("c.bmp")), size, &error));
        QVERIFY(error.contains(QStringLiteral("png")));
        QVERIFY(!exportChart(chart, png, QSize(10, 10), &error));
    }

    void chartRedrawnWithoutAnEventLoopDrawsOnlyItsData()
    {
        // export --report and --html redraw one chart many times with no event loop in between: the items of
        // the series and axes that setData() replaced must not be drawn too (they were stray "..." labels,
        // one more set in every later chart of the report).
        BarChart chart;
        const QString svg = m_dir.filePath(QStringLiteral("again.svg"));
        QString error;
        qsizetype texts = -1;
        for (int i = 0; i < 3; ++i) {
            chart.setData(QStringLiteral("again %1").arg(i), { QStringLiteral("p50"), QStringLiteral("p99") },
                { { QStringLiteral("a"), Qt::blue, { 10, 20 } }, { QStringLiteral("b"), Qt::red, { 30, 40 } } },
                QStringLiteral("ms"));
            QVERIFY2(exportChart(chart, svg, QSize(640, 400), &error), qPrintable(error));
            const QByteArray text = readAll(svg);
            QVERIFY(text.contains(QStringLiteral("again %1").arg(i).toUtf8()));
            if (texts < 0)
                texts = text.count("<text");
            QCOMPARE(text.count("<text"), texts); // the same chart, drawn once
            QVERIFY(!text.contains(">...</text>"));
        }
    }

    void cliExportWritesEveryFormatWithoutSecrets()
    {
        for (const char* format : { "png", "svg", "pdf" }) {
            const QString out = m_dir.filePath(QStringLiteral("ttft.") + QLatin1String(format));
            QProcess p;
            p.start(QStringLiteral(KNOBSCOPE_BIN),
                { QStringLiteral("export"), kFixture, QStringLiteral("--chart"), QStringLiteral("ttft"),
                    QStringLiteral("--format"), QString::fromLatin1(format), QStringLiteral("--out"), out,
                    QStringLiteral("--size"), QStringLiteral("800x500") });
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            const QByteArray bytes = readAll(out);
            QVERIFY(!bytes.isEmpty());
            QVERIFY(!bytes.contains("127.0.0.1")); // the fixture's server address never reaches a chart
        }
        QCOMPARE(QImage(m_dir.filePath(QStringLiteral("ttft.png"))).size(), QSize(800, 500));
        const QString report = m_dir.filePath(QStringLiteral("report"));
        QProcess p;
        p.start(
            QStringLiteral(KNOBSCOPE_BIN), { QStringLiteral("export"), kFixture, QStringLiteral("--report"), report });
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QByteArray index = readAll(report + QStringLiteral("/index.md"));
        QVERIFY(index.contains("burst-ttft.png"));
        QVERIFY(QFile::exists(report + QStringLiteral("/burst-cdf-e2e.svg")));
        QVERIFY(readAll(report + QStringLiteral("/compare.csv")).startsWith("arm,config,metric"));
    }
};

QTEST_MAIN(TestReplayExport)
#include "tst_replayexport.moc"
