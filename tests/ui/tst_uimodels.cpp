// The editor's item models under QAbstractItemModelTester, and a spec round trip
// through the model API.
#include "charts/titlewrap.h"
#include "compare/comparisonreader.h"
#include "editor/experimentdocument.h"
#include "feeds/runfileloader.h"
#include "models/comparetablemodel.h"
#include "models/runlistmodel.h"
#include "models/spectablemodel.h"
#include "pages/comparepage.h"
#include "window/windowplacement.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QFont>
#include <QFontMetrics>
#include <QLabel>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json bundled(const char* name)
{
    QFile file(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments/") + QString::fromLatin1(name));
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    return json::parse(file.readAll().toStdString());
}

int columnOf(const QAbstractItemModel& model, const QString& header)
{
    for (int c = 0; c < model.columnCount(); ++c) {
        if (model.headerData(c, Qt::Horizontal).toString() == header)
            return c;
    }
    return -1;
}

} // namespace

class TestUiModels : public QObject {
    Q_OBJECT
private slots:
    void specTableModelIsConsistent()
    {
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(bundled("one-knob.json").dump()), &error));
        SpecTableModel* configs = doc.configs();
        QAbstractItemModelTester tester(configs, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(configs->rowCount(), 2);
        QVERIFY(configs->insertRows(1, 2));
        QVERIFY(configs->removeRows(0, 1));
        QVERIFY(configs->moveRows({}, 0, 1, {}, 3));
        QVERIFY(!configs->moveRows({}, 0, 1, {}, 1)); // onto itself: refused
        QVERIFY(configs->duplicateRow(0));
        configs->addColumn({ QStringLiteral("knobs.max_model_len"), QStringLiteral("max_model_len"),
            SpecTableModel::Kind::Integer, {} });
        QVERIFY(configs->setData(configs->index(0, 0), QStringLiteral("renamed")));
        QCOMPARE(configs->rowCount(), 4);
        QVERIFY(!configs->insertRows(9, 1));
        QVERIFY(!configs->removeRows(3, 2));

        SpecTableModel* arms = doc.arms();
        QAbstractItemModelTester armTester(arms, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(arms->moveRows({}, 2, 1, {}, 0));
        QCOMPARE(arms->data(arms->index(0, 0)).toString(), QStringLiteral("stress"));
        doc.load(QByteArray::fromStdString(bundled("small-vs-large.json").dump()), &error); // a reset
        QCOMPARE(arms->rowCount(), 1);
    }

    void runListModelIsConsistent()
    {
        RunListModel runs;
        QAbstractItemModelTester tester(&runs, QAbstractItemModelTester::FailureReportingMode::QtTest);
        runs.runStarted(QStringLiteral("a/stress"));
        runs.progressed(QStringLiteral("a/stress"), 32, 64);
        QCOMPARE(runs.data(runs.index(0, RunListModel::ProgressColumn), RunListModel::kProgressRole).toInt(), 500);
        runs.runFinished(QStringLiteral("a/stress"),
            runSummaryFromJson({ { "status", "completed" }, { "requests", 64 }, { "ttft_ms", { { "p50", 418.5 } } },
                { "warnings", { "this arm never queued: it measured an idle server" } } }));
        QCOMPARE(runs.data(runs.index(0, RunListModel::TtftColumn)).toString(), QStringLiteral("418.5"));
        QVERIFY(
            runs.data(runs.index(0, RunListModel::StatusColumn)).toString().contains(QStringLiteral("idle server")));
        QVERIFY(runs.data(runs.index(0, RunListModel::TtftColumn), Qt::ToolTipRole).isNull()); // no split: no tip
        runs.runFinished(
            QStringLiteral("b/stress"), runSummaryFromJson({ { "status", "stopped" } })); // never started: still listed
        QCOMPARE(runs.rowCount(), 2);
        runs.runFinished(QStringLiteral("b/stress"),
            runSummaryFromJson({ { "status", "completed" },
                { "ttft_split_ms",
                    { { "queue", { { "p50", 250.0 }, { "mean", 7.5 } } }, { "prefill", { { "p50", 420.0 } } },
                        { "rest", { { "mean", 150.0 } } }, { "source", "vllm-histograms" } } } }));
        // From histograms the exact means: a p50 is only known to its bucket.
        QCOMPARE(runs.data(runs.index(1, RunListModel::TtftColumn), Qt::ToolTipRole).toString(),
            QStringLiteral("TTFT split: queue mean 7.5, prefill p50 420.0, rest mean 150.0 ms (vllm-histograms)"));
        runs.clear();
        QCOMPARE(runs.rowCount(), 0);
    }

    void editorRoundTripsASpec()
    {
        const json original = bundled("one-knob.json");
        QVERIFY(original.is_object());
        json withExtras = original;
        withExtras["slo"]["note"] = "kept"; // unknown to the editor: must survive untouched
        withExtras["configs"][0]["comment"] = "kept too";

        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(withExtras.dump()), &error));
        SpecTableModel* configs = doc.configs();
        SpecTableModel* arms = doc.arms();
        const int mns = columnOf(*configs, QStringLiteral("max_num_seqs"));
        QVERIFY(mns >= 0);
        QVERIFY(configs->setData(configs->index(1, mns), QStringLiteral("16")));
        QVERIFY(configs->insertRows(2, 1));
        QVERIFY(configs->setData(configs->index(2, 0), QStringLiteral("mns64")));
        QVERIFY(configs->setData(configs->index(2, mns), QStringLiteral("64")));
        const int requests = columnOf(*arms, QStringLiteral("Requests"));
        QVERIFY(arms->setData(arms->index(0, requests), QStringLiteral("32")));
        QVERIFY(arms->removeRows(1, 1));
        doc.setValue(QStringLiteral("target.api"), "chat");
        doc.setValue(QStringLiteral("probes"), { { "set", "builtin:quality-50" }, { "repeats", 2 } });

        // The same edits made directly on the JSON.
        json expected = withExtras;
        expected["configs"][1]["knobs"]["max_num_seqs"] = 16;
        expected["configs"].push_back(
            { { "label", "mns64" }, { "model", "sim-8b" }, { "knobs", { { "max_num_seqs", 64 } } } });
        expected["arms"][0]["requests"] = 32;
        expected["arms"].erase(1);
        expected["target"]["api"] = "chat";
        expected["probes"] = { { "set", "builtin:quality-50" }, { "repeats", 2 } };

        const json saved = json::parse(doc.toBytes().toStdString());
        QCOMPARE(QString::fromStdString(saved.dump(1)), QString::fromStdString(expected.dump(1)));
    }

    // The Compare page says how each configuration's intervals were made, bolds
    // only what is shown to differ, and warns of a configuration that never settled.
    void comparePageSaysHowIntervalsWereMade()
    {
        const json base = { { "config", "a" }, { "ttft_ms", { { "p50", 100.0 }, { "p99", 200.0 } } },
            { "ratio", { { "ttft_ms", { { "p50", 1.0 }, { "p99", 1.0 } } } } }, { "errors", 0 }, { "error_rate", 0.0 },
            { "max_waiting", 3 }, { "req_per_s", 10.0 }, { "out_tok_per_s", 100.0 }, { "goodput_req_per_s", 10.0 },
            { "tpot_ms", nullptr }, { "itl_ms", nullptr }, { "e2e_ms", nullptr }, { "run", "a/stress" },
            { "steady", { { "method", "MSER-5" }, { "dropped", 32 }, { "requests", 256 }, { "settled", true } } } };
        json rounds = base;
        rounds["config"] = "b";
        rounds["run"] = "b/stress";
        rounds["ttft_ms"] = { { "p50", 130.0 }, { "p99", 208.0 } };
        rounds["ratio"] = { { "ttft_ms", { { "p50", 1.30 }, { "p99", 1.04 } } } };
        rounds["ratio_ci95"]
            = { { "ttft_ms", { { "p50", { 1.2, 1.4 } }, { "p99", { 0.95, 1.13 } } } }, { "method", "rounds" } };
        rounds["significant"] = { { "ttft_ms", { { "p50", true }, { "p99", false } } } };
        rounds["run_to_run"]
            = { { "measured", true }, { "method", "rounds" }, { "rounds", 3 }, { "confidence", 0.95 } };
        rounds["rounds_needed"] = { { "for", 0.05 }, { "ttft_ms", { { "p99", 9 } } } };
        rounds.erase("steady");
        json single = rounds;
        single["config"] = "c";
        single["run"] = "c/stress";
        single["significant"] = { { "ttft_ms", { { "p50", false }, { "p99", false } } } };
        single["within_run_significant"] = { { "ttft_ms", { { "p50", true }, { "p99", false } } } };
        single["run_to_run"]
            = { { "measured", false }, { "method", "within-run" }, { "rounds", 1 }, { "confidence", 0.95 } };
        single.erase("rounds_needed");
        single["steady"] = { { "method", "MSER-5" }, { "dropped", 0 }, { "requests", 256 }, { "settled", false } };
        auto result = std::make_shared<LoadedRunFile>();
        result->path = QStringLiteral("runs.jsonl");
        result->file = std::make_shared<RunFile>();
        result->intervals = true;
        result->calibrationNote = QStringLiteral("the spec names the calibration cal.jsonl, which is not there");
        result->comparison = comparisonFromJson(json::array({ { { "arm", "stress" }, { "baseline", "a" },
            { "gentle", false }, { "unsettled", { "c" } }, { "configs", { base, rounds, single } } } }));
        RunFileLoader loader;
        ComparePage page(&loader);
        page.setResult(result);
        const QString text = page.intervalsText();
        QVERIFY2(text.contains(QStringLiteral("a: dropped 32 of 256 requests as warm-up (MSER-5).")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("b: 95 % intervals across 3 paired rounds; about 9 paired rounds would "
                                              "resolve a 5 % difference in TTFT p99.")),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("c: 95 % intervals within one run; run-to-run not measured: add repeats "
                                              "or calibrate; TTFT still moving at the end of the run: not steady; its "
                                              "intervals say little.")),
            qPrintable(text));
        bool noted = false;
        for (const QLabel* label : page.findChildren<QLabel*>())
            noted = noted || label->text().contains(QStringLiteral("Calibration: the spec names the calibration"));
        QVERIFY(noted);

        CompareTableModel* table = page.table();
        QAbstractItemModelTester tester(table, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QModelIndex bP50 = table->index(1, 1), cP50 = table->index(2, 1);
        QCOMPARE(table->data(bP50).toString(), QStringLiteral("130.0 (1.30x [1.20-1.40]*)"));
        QVERIFY(table->data(bP50, Qt::FontRole).value<QFont>().bold());
        QVERIFY(table->data(bP50, Qt::ToolTipRole).toString().contains(QStringLiteral("across 3 paired rounds")));
        QVERIFY(table->data(table->index(1, 2), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("Undecided: about 9 paired rounds")));
        // One run: the bootstrap alone excludes 1, but that is neither * nor bold.
        QCOMPARE(table->data(cP50).toString(), QStringLiteral("130.0 (1.30x [1.20-1.40])"));
        QVERIFY(!table->data(cP50, Qt::FontRole).value<QFont>().bold());
        const QString tip = table->data(cP50, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("Not shown to differ")) && tip.contains(QStringLiteral("within one run")),
            qPrintable(tip));
    }

    void validatorProblemsMarkTheCell()
    {
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(bundled("one-knob.json").dump()), &error));
        SpecTableModel* configs = doc.configs();
        const int mns = columnOf(*configs, QStringLiteral("max_num_seqs"));
        QVERIFY(configs->setData(configs->index(1, mns), QStringLiteral("lots")));
        QVERIFY(std::holds_alternative<std::vector<SpecError>>(doc.validate()));
        const QModelIndex bad = configs->index(1, mns);
        QVERIFY(configs->data(bad, Qt::BackgroundRole).isValid());
        QVERIFY2(configs->data(bad, Qt::ToolTipRole).toString().contains(QStringLiteral("whole number")),
            qPrintable(configs->data(bad, Qt::ToolTipRole).toString()));
        QVERIFY(!configs->data(configs->index(0, mns), Qt::BackgroundRole).isValid());
        QVERIFY(doc.problems().contains(QStringLiteral("configs[1].knobs.max_num_seqs")));

        QVERIFY(configs->setData(bad, QStringLiteral("16")));
        QVERIFY(std::holds_alternative<ExperimentSpec>(doc.validate()));
        QVERIFY(!configs->data(bad, Qt::BackgroundRole).isValid());
    }

    void notJsonIsRefused()
    {
        ExperimentDocument doc;
        QString error;
        QVERIFY(!doc.load("[1, 2", &error));
        QVERIFY(error.contains(QStringLiteral("JSON")));
        QVERIFY(doc.configs()->rowCount() > 0); // the previous experiment is still there
    }

    // On-screen chart titles wrap at their separators so every configuration
    // stays visible (a title cut to "mns32 vs ..." hid what was compared).
    void chartTitlesWrapAtSeparators()
    {
        const QString title = QStringLiteral("one-knob · stress · TTFT (ms) · mns32 vs mns128 vs mns256");
        const QFontMetrics metrics(QApplication::font());
        const int narrow = metrics.horizontalAdvance(QStringLiteral("one-knob · stress · TTFT (ms) ·x"));
        const QStringList lines = wrapTitle(title, metrics, narrow);
        QVERIFY2(lines.size() >= 2, qPrintable(lines.join(u'|')));
        QCOMPARE(lines.join(u' '), title); // nothing lost, nothing elided
        for (const QString& line : lines)
            QVERIFY2(metrics.horizontalAdvance(line) <= narrow, qPrintable(line));
        QVERIFY(lines.last().contains(QStringLiteral("mns256")));
        QCOMPARE(wrapTitle(title, metrics, 100000), QStringList { title }); // fits: one line
        // One piece wider than the space is elided in the middle, never dropped.
        const QStringList tiny = wrapTitle(title, metrics, metrics.horizontalAdvance(QStringLiteral("mns128 vs")));
        QVERIFY(tiny.size() >= 4);
        QVERIFY(tiny.join(u' ').contains(QStringLiteral("mns32")));
    }

    void firstWindowFitsTheScreen_data()
    {
        QTest::addColumn<QRect>("available");
        QTest::newRow("1280x800 laptop") << QRect(0, 0, 1280, 800);
        QTest::newRow("1920x1080 desktop, panel") << QRect(0, 27, 1920, 1053);
        QTest::newRow("2560x1440") << QRect(0, 0, 2560, 1440);
    }
    void firstWindowFitsTheScreen()
    {
        QFETCH(QRect, available);
        const QSize size = firstWindowSize(available);
        QVERIFY(size.width() <= available.width() && size.height() <= available.height());
        // Most of a laptop or desktop screen, not the old ~1066x666 default.
        if (available.width() <= 1920) {
            QVERIFY(size.width() >= available.width() * 0.85);
            QVERIFY(size.height() >= available.height() * 0.85);
        }
        const int editor = firstEditorWidth(size.width(), 380);
        QVERIFY(editor >= 460 && editor <= size.width() * 2 / 5);
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
