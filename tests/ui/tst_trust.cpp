// Launch trust in the dashboard: a spec's server command from a file nobody
// trusted does not run until the user says so, a changed command asks again,
// and knobscope's own specs, the user's saved ones and `SPEC.json --run` run
// without asking. The planted command only touches a marker file and exits,
// so a run that starts it ends at once (the server never becomes ready).
#include "editor/experimentdocument.h"
#include "editor/launchtrustdialog.h"
#include "feeds/runcontroller.h"
#include "window/mainwindow.h"

#include "common/freeport.h"

#include <QFile>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

/// A spec whose server command is `sh -c 'touch "$0"' MARKER` (plus `extra`).
json plantedSpec(const QString& marker, const QString& extra = {})
{
    return { { "name", "planted" }, { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(freePort()) } } },
        { "server",
            { { "command", { "sh", "-c", "touch \"$0\"" + extra.toStdString(), marker.toStdString() } },
                { "ready_timeout_s", 10 } } },
        { "configs", { { { "label", "only" }, { "model", "sim-1.8b" } } } },
        { "arms",
            { { { "name", "a" }, { "mode", "concurrency" }, { "concurrency", 1 }, { "requests", 1 },
                { "max_tokens", 4 } } } } };
}

bool writeJson(const QString& path, const json& content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && file.write(QByteArray::fromStdString(content.dump(2))) > 0;
}

QPointer<LaunchTrustDialog> shownDialog(MainWindow& window)
{
    for (LaunchTrustDialog* dialog : window.findChildren<LaunchTrustDialog*>())
        if (dialog->isVisible())
            return dialog;
    return nullptr;
}

/// Presses Run on a command that must ask first: nothing runs, the question is shown.
void asksBeforeRunning(MainWindow& window)
{
    window.run();
    QVERIFY(!window.isRunning());
    QTRY_VERIFY(shownDialog(window));
}

/// Presses Run on a command that must run without a question: it starts at
/// once, touches `marker`, and the run ends (the `runs`-th time `ended` fires).
void runsWithoutAsking(MainWindow& window, const QString& marker, QSignalSpy& ended, int runs)
{
    window.run();
    QVERIFY(window.isRunning());
    QVERIFY(!shownDialog(window));
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(marker), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(ended.count(), runs, 30000); // (it may end while the marker is awaited)
}

} // namespace

// QVERIFY in a helper returns from the helper only: the test stops here too.
#define ASKS_BEFORE_RUNNING(window)                                                                                    \
    do {                                                                                                               \
        asksBeforeRunning(window);                                                                                     \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (false)
#define RUNS_WITHOUT_ASKING(window, marker, ended, runs)                                                               \
    do {                                                                                                               \
        runsWithoutAsking(window, marker, ended, runs);                                                                \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (false)

class TestTrust : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear(); // trust is remembered across runs of the dashboard, so across runs of this test too
    }

    void init() { QVERIFY(m_dir.isValid()); }

    void plantedCommandRunsOnlyOnceTrusted()
    {
        const QString marker = m_dir.filePath(QStringLiteral("MARKER"));
        const QString path = m_dir.filePath(QStringLiteral("planted.json"));
        QVERIFY(writeJson(path, plantedSpec(marker)));

        MainWindow window;
        window.show();
        QVERIFY(window.openSpec(path));
        ASKS_BEFORE_RUNNING(window);
        QPointer<LaunchTrustDialog> dialog = shownDialog(window);
        // The exact argv, shell-quoted, and where it would run.
        QVERIFY2(dialog->commandText().contains(QStringLiteral("sh -c 'touch \"$0\"' ") + marker),
            qPrintable(dialog->commandText()));
        QVERIFY(dialog->commandText().startsWith(QStringLiteral("# only (runs ")));
        // Enter is Cancel: a reflex does not run a stranger's command.
        QVERIFY(dialog->cancelButton()->isDefault());
        QTest::keyClick(dialog, Qt::Key_Return);
        QTRY_VERIFY(dialog.isNull());
        QVERIFY(!window.isRunning());
        QVERIFY(!QFile::exists(marker));

        // Asked again (a refusal is not remembered as trust); this time trusted: it runs.
        ASKS_BEFORE_RUNNING(window);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        shownDialog(window)->trustButton()->click();
        QVERIFY(window.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(marker), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 30000); // (it may end while the marker is awaited)

        // Opened again, the same command runs without asking.
        QVERIFY(QFile::remove(marker));
        QVERIFY(window.openSpec(path));
        RUNS_WITHOUT_ASKING(window, marker, ended, 2);

        // The file's command changed: it asks again, and Cancel runs nothing.
        QVERIFY(QFile::remove(marker));
        QVERIFY(writeJson(path, plantedSpec(marker, QStringLiteral("; echo changed"))));
        QVERIFY(window.openSpec(path));
        ASKS_BEFORE_RUNNING(window);
        QVERIFY(shownDialog(window)->commandText().contains(QStringLiteral("echo changed")));
        shownDialog(window)->cancelButton()->click();
        QTRY_VERIFY(!shownDialog(window));
        QVERIFY(!window.isRunning());
        QVERIFY(!QFile::exists(marker));
    }

    void bundledSpecRunsWithoutAsking()
    {
        MainWindow window;
        window.show();
        window.loadBundled(QStringLiteral("one-knob"));
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.run();
        QVERIFY(window.isRunning()); // started at once: no question
        QVERIFY(!shownDialog(window));
        window.stop();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
    }

    void savedFromTheEditorRunsWithoutAsking()
    {
        const QString marker = m_dir.filePath(QStringLiteral("SAVED"));
        const QString path = m_dir.filePath(QStringLiteral("mine.json"));
        {
            // The user's own experiment: the bundled one, its command edited in the editor, saved.
            MainWindow window;
            window.loadBundled(QStringLiteral("one-knob"));
            const json planted = plantedSpec(marker);
            window.document()->setValue(QStringLiteral("server"), planted["server"]);
            window.document()->setValue(QStringLiteral("target"), planted["target"]);
            QVERIFY(window.saveSpec(path));
        }
        MainWindow window; // a later session
        window.show();
        QVERIFY(window.openSpec(path));
        QSignalSpy ended(&window, &MainWindow::runEnded);
        RUNS_WITHOUT_ASKING(window, marker, ended, 1);
    }

    void savingSomeoneElsesSpecDoesNotTrustIt()
    {
        const QString marker = m_dir.filePath(QStringLiteral("COPIED"));
        const QString theirs = m_dir.filePath(QStringLiteral("theirs.json"));
        const QString copy = m_dir.filePath(QStringLiteral("copy.json"));
        QVERIFY(writeJson(theirs, plantedSpec(marker)));
        {
            MainWindow window;
            QVERIFY(window.openSpec(theirs));
            QVERIFY(window.saveSpec(copy)); // Save As into the user's folder
        }
        MainWindow window;
        window.show();
        QVERIFY(window.openSpec(copy));
        ASKS_BEFORE_RUNNING(window);
        shownDialog(window)->reject();
        QTRY_VERIFY(!shownDialog(window));
        QVERIFY(!QFile::exists(marker));
    }

    void namedWithRunRunsWithoutAsking()
    {
        // `knobscope SPEC.json --run`: the app opens the file as NamedToRun, then runs it.
        const QString marker = m_dir.filePath(QStringLiteral("NAMED"));
        const QString path = m_dir.filePath(QStringLiteral("named.json"));
        QVERIFY(writeJson(path, plantedSpec(marker)));
        MainWindow window;
        window.show();
        QVERIFY(window.openSpec(path, LaunchTrust::Origin::NamedToRun));
        QSignalSpy ended(&window, &MainWindow::runEnded);
        RUNS_WITHOUT_ASKING(window, marker, ended, 1);
    }

    void externalTargetNeedsNoTrust()
    {
        // No server command: nothing is started, so nothing is asked (the run fails to connect, which is fine).
        const QString path = m_dir.filePath(QStringLiteral("external.json"));
        json spec = plantedSpec(m_dir.filePath(QStringLiteral("UNUSED")));
        spec.erase("server");
        QVERIFY(writeJson(path, spec));
        MainWindow window;
        window.show();
        QVERIFY(window.openSpec(path));
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.run();
        QVERIFY(window.isRunning());
        QVERIFY(!shownDialog(window));
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestTrust)
#include "tst_trust.moc"
