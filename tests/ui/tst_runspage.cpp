// The Runs page (ui/pages/runspage): the run library in the dashboard, filtered
// and sorted in memory, two configurations from two files compared without a
// path typed, the trend of the selected configuration, and the files the
// window opens catalogued.
#include "charts/trendplot.h"
#include "compare/comparisonwriter.h"
#include "feeds/cataloguejobs.h"
#include "feeds/runfileloader.h"
#include "library/cataloguematch.h"
#include "library/runcatalogue.h"
#include "models/runstablemodel.h"
#include "pages/comparepage.h"
#include "pages/runspage.h"
#include "store/runfile.h"
#include "window/librarylink.h"
#include "window/mainwindow.h"

#include <QAbstractButton>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace ks;

namespace {

const QString kFixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");
const QString kReasoning = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/reasoning-tools.jsonl");

void catalogue(const QString& library, const QStringList& paths)
{
    QString error;
    auto catalogue = RunCatalogue::open(library, &error);
    QVERIFY2(catalogue, qPrintable(error));
    for (const QString& path : paths) {
        RunFile file;
        QVERIFY2(readRunFile(path, &file, &error), qPrintable(error));
        QVERIFY2(catalogue->addFile(path, file, &error), qPrintable(error));
    }
}

QPushButton* button(QWidget* page, const QString& text)
{
    for (QPushButton* b : page->findChildren<QPushButton*>())
        if (b->text() == text)
            return b;
    return nullptr;
}

} // namespace

class TestRunsPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        // The window's library: this test's own, never the suite's shared one.
        qputenv("KNOBSCOPE_LIBRARY", m_dir.filePath(QStringLiteral("window.sqlite")).toUtf8());
        m_yesterday = m_dir.filePath(QStringLiteral("yesterday.jsonl"));
        QVERIFY(QFile::copy(kFixture, m_yesterday));
    }

    void filtersAndSortsInMemory()
    {
        const QString library = m_dir.filePath(QStringLiteral("page.sqlite"));
        catalogue(library, { kFixture, kReasoning });
        RunsPage page(library);
        page.reload();
        RunsTableModel* model = page.model();
        QVERIFY(model->totalCount() > 4);
        QCOMPARE(model->rowCount(), model->totalCount());

        page.filterEdit()->setText(QStringLiteral("knob.max_num_seqs=2"));
        CatalogueFilter filter;
        QString error;
        QVERIFY(parseCatalogueFilter({ QStringLiteral("knob.max_num_seqs=2") }, &filter, &error));
        int expected = 0;
        for (const CatalogueRow& r : model->allRows())
            expected += catalogueRowMatches(r, filter) ? 1 : 0;
        QVERIFY(expected > 0 && expected < model->totalCount());
        QCOMPARE(model->rowCount(), expected);
        // A term being typed that does not parse keeps the last good filter and says why.
        page.filterEdit()->setText(QStringLiteral("knob.max_num_seqs=2 colour=red"));
        QCOMPARE(model->rowCount(), expected);
        QVERIFY(page.findChild<QLabel*>() != nullptr);
        page.filterEdit()->clear();
        QCOMPARE(model->rowCount(), model->totalCount());

        // Sorted by TTFT p99, largest first; rows without the figure last either way.
        page.table()->sortByColumn(RunsTableModel::TtftP99Column, Qt::DescendingOrder);
        double previous = HUGE_VAL;
        bool missingSeen = false;
        for (int i = 0; i < model->rowCount(); ++i) {
            const std::optional<double> v = model->rowAt(i)->arm.ttftP99.value;
            if (!v) {
                missingSeen = true;
                continue;
            }
            QVERIFY2(!missingSeen, "a row with TTFT p99 after one without");
            QVERIFY(*v <= previous);
            previous = *v;
        }
        page.table()->sortByColumn(RunsTableModel::IdColumn, Qt::AscendingOrder);
        for (int i = 1; i < model->rowCount(); ++i)
            QVERIFY(model->rowAt(i - 1)->id < model->rowAt(i)->id);
    }

    // The done-when of the run library: two configurations from two different
    // files compared from the Runs page, and the selected one's trend.
    void comparesTwoFilesWithoutAPath()
    {
        catalogue(qEnvironmentVariable("KNOBSCOPE_LIBRARY"), { kFixture, m_yesterday });
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        RunsPage* page = window.runsPage();
        page->reload();
        const RunsTableModel* model = page->model();
        int a = -1, b = -1;
        for (int i = 0; i < model->rowCount() && b < 0; ++i) {
            const CatalogueRow* r = model->rowAt(i);
            if (a < 0 && r->arm.config == QLatin1String("mns2"))
                a = i;
            else if (a >= 0 && r->fileId != model->rowAt(a)->fileId && r->arm.config == QLatin1String("mns2")
                && r->arm.arm == model->rowAt(a)->arm.arm)
                b = i;
        }
        QVERIFY(a >= 0 && b >= 0);
        const qint64 idA = model->rowAt(a)->id, idB = model->rowAt(b)->id;
        page->selectRows({ a, b });
        QCOMPARE(int(page->selectedPicks().size()), 2);

        // The trend follows the first selected row's configuration: both files.
        QCOMPARE(int(page->trendPlot()->trend().points.size()), 2);
        QVERIFY(page->trendPlot()->trend().changes.empty()); // the same file twice never moved

        QPushButton* compare = button(page, QStringLiteral("Compare &selected"));
        QVERIFY(compare && compare->isEnabled());
        QSignalSpy loaded(window.loader(), &RunFileLoader::loaded);
        compare->click();
        QCOMPARE(window.pages()->currentWidget(), static_cast<QWidget*>(window.comparePage()));
        std::shared_ptr<const LoadedRunFile> result;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const QList<QVariant>& args : std::as_const(loaded)) {
                    auto r = args.at(0).value<std::shared_ptr<const LoadedRunFile>>();
                    if (r && r->intervals)
                        result = r;
                }
                return result != nullptr;
            }(),
            30000);
        QVERIFY2(result->error.isEmpty(), qPrintable(result->error));
        QCOMPARE(result->picks, QStringLiteral("@%1 @%2").arg(idA).arg(idB));
        const nlohmann::json compared = comparisonToJson(result->comparison);
        QCOMPARE(int(compared.size()), 1);
        const nlohmann::json& configs = compared[0]["configs"];
        QCOMPARE(int(configs.size()), 2);
        QCOMPARE(QString::fromStdString(configs[0]["config"].get<std::string>()), QStringLiteral("mns2 @%1").arg(idA));
        QCOMPARE(QString::fromStdString(configs[1]["config"].get<std::string>()), QStringLiteral("mns2 @%1").arg(idB));
        QCOMPARE(configs[1]["ratio"]["ttft_ms"]["p50"].get<double>(), 1.0);
    }

    // What the window opens is catalogued (off the GUI thread), and the page shows it.
    void openedFilesAreCatalogued()
    {
        const QString opened = m_dir.filePath(QStringLiteral("opened-today.jsonl"));
        QVERIFY(QFile::copy(kReasoning, opened));
        MainWindow window;
        window.show();
        const int before = window.runsPage()->model()->totalCount();
        QSignalSpy catalogued(window.library()->jobs(), &CatalogueJobs::catalogued);
        window.openRunFile(opened);
        QTRY_COMPARE_WITH_TIMEOUT(catalogued.count(), 1, 30000);
        QCOMPARE(catalogued.at(0).at(0).toString(), opened);
        QVERIFY2(catalogued.at(0).at(1).toString().isEmpty(), qPrintable(catalogued.at(0).at(1).toString()));
        QVERIFY(window.runsPage()->model()->totalCount() > before);
        window.runsPage()->filterEdit()->setText(QStringLiteral("opened-today"));
        QVERIFY(window.runsPage()->model()->rowCount() > 0);
    }

    // Delete…: "Only forget them" keeps the file; "Delete the files" removes it too, after the confirmation.
    void deleteForgetsOrDeletesAfterAsking()
    {
        const QString library = m_dir.filePath(QStringLiteral("delete.sqlite"));
        const QString keep = m_dir.filePath(QStringLiteral("keep.jsonl"));
        const QString remove = m_dir.filePath(QStringLiteral("remove.jsonl"));
        QVERIFY(QFile::copy(kReasoning, keep));
        QVERIFY(QFile::copy(kReasoning, remove));
        catalogue(library, { keep, remove });
        RunsPage page(library);
        page.reload();
        QPushButton* del = button(&page, QStringLiteral("Delete…"));
        QVERIFY(del);
        auto answer = [](const QString& choice, QString* shown) {
            QTimer::singleShot(0, [choice, shown] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                if (!box)
                    return;
                *shown = box->informativeText();
                for (QAbstractButton* b : box->buttons())
                    if (b->text() == choice)
                        b->click();
            });
        };
        auto rowsOf = [&](const QString& path) {
            int n = 0;
            for (const CatalogueRow& r : page.model()->allRows())
                n += r.file.path == path ? 1 : 0;
            return n;
        };
        auto select = [&](const QString& path) {
            QList<int> rows;
            for (int i = 0; i < page.model()->rowCount(); ++i)
                if (page.model()->rowAt(i)->file.path == path)
                    rows << i;
            page.selectRows(rows);
        };
        QVERIFY(rowsOf(keep) > 0 && rowsOf(remove) > 0);

        QString shown;
        select(keep);
        answer(QStringLiteral("Cancel"), &shown);
        del->click();
        QVERIFY2(shown.contains(keep), qPrintable(shown)); // the confirmation names the file
        QVERIFY(rowsOf(keep) > 0);

        select(keep);
        answer(QStringLiteral("Only forget them"), &shown);
        del->click();
        QCOMPARE(rowsOf(keep), 0);
        QVERIFY(QFile::exists(keep));

        select(remove);
        answer(QStringLiteral("Delete the files"), &shown);
        del->click();
        QCOMPARE(rowsOf(remove), 0);
        QVERIFY(!QFile::exists(remove));
    }

private:
    QTemporaryDir m_dir;
    QString m_yesterday;
};

QTEST_MAIN(TestRunsPage)
#include "tst_runspage.moc"
