#include "mainmenus.h"

#include "datalocations.h"
#include "editor/experimenteditor.h"
#include "feeds/replaycontroller.h"
#include "mainwindow.h"
#include "pages/livepage.h"
#include "settings.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace ks {

MainMenus::MainMenus(MainWindow* window, Settings* settings, ExperimentEditor* editor, ReplayController* replay)
    : QObject(window)
    , m_window(window)
    , m_settings(settings)
    , m_editor(editor)
    , m_replay(replay)
{
    QMenu* file = m_window->menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New experiment"), QKeySequence::New, this, &MainMenus::newExperimentRequested);
    file->addAction(tr("&Open experiment…"), QKeySequence::Open, this, &MainMenus::openExperimentRequested);
    file->addAction(tr("Open run &file…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Open run file"), m_settings->runDirectory(),
            tr("Run files and results (*.jsonl *.json);;All files (*)"));
        if (!path.isEmpty())
            m_window->openRunFile(path);
    });
    file->addAction(tr("Co&mpare with another run file…"), this, [this] {
        if (m_replay->path().isEmpty() && m_window->runFilePath().isEmpty()) {
            m_window->statusBar()->showMessage(tr("Open a run file (or run an experiment) first"), 5000);
            return;
        }
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Compare with run file"),
            m_settings->runDirectory(), tr("Run files and results (*.jsonl *.json);;All files (*)"));
        if (!path.isEmpty())
            m_window->compareWith(path);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    QMenu* bundled = file->addMenu(tr("Open &bundled"));
    for (const char* name : { "one-knob", "knob-grid", "knob-search", "small-vs-large", "drift", "reasoning-tools",
             "images", "spec-decode" })
        bundled->addAction(
            QString::fromLatin1(name), this, [this, name] { m_window->loadBundled(QString::fromLatin1(name)); });
    // Templates for real servers, from share/knobscope/experiments (read-only: Save asks for a new name).
    if (const QString templates = experimentTemplateDirectory(); !templates.isEmpty()) {
        bundled->addSection(tr("Real-server templates"));
        for (const QFileInfo& spec : QDir(templates).entryInfoList({ QStringLiteral("*-template.json") }, QDir::Files))
            bundled->addAction(
                spec.completeBaseName(), this, [this, path = spec.absoluteFilePath()] { m_window->openSpec(path); });
    }
    file->addAction(tr("&Save experiment"), QKeySequence::Save, this, &MainMenus::saveRequested);
    file->addAction(tr("Save experiment &as…"), QKeySequence::SaveAs, this, &MainMenus::saveAsRequested);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, m_window, &QWidget::close);
    rebuildRecent();

    QMenu* runMenu = m_window->menuBar()->addMenu(tr("&Run"));
    m_runAction
        = runMenu->addAction(tr("&Run experiment"), QKeySequence(Qt::CTRL | Qt::Key_R), m_window, &MainWindow::run);
    m_runAction->setToolTip(tr("Run every arm against every configuration into a new run file"));
    m_stopAction = runMenu->addAction(tr("&Stop"), QKeySequence(Qt::Key_Escape), m_window, &MainWindow::stop);
    m_stopAction->setToolTip(tr("End the current arm cleanly; the run file stays valid"));
    runMenu->addSeparator();
    QAction* forget = runMenu->addAction(tr("&Forget trusted server commands"), this, [this] {
        m_settings->forgetTrustedLaunches();
        m_window->statusBar()->showMessage(
            tr("Forgot every trusted server command: experiment files ask again before they start one"), 6000);
    });
    forget->setToolTip(tr("Experiment files opened from now on ask again before starting their server command"));

    QMenu* view = m_window->menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_window->pages()->count(); ++i) {
        view->addAction(m_window->pages()->tabText(i).remove(QLatin1Char('&')),
            QKeySequence(Qt::CTRL | (Qt::Key_1 + i)), this, [this, i] { m_window->pages()->setCurrentIndex(i); });
    }
    view->addSeparator();
    LivePage* live = m_window->livePage();
    QAction* cumulative = view->addAction(tr("&Cumulative percentiles"));
    cumulative->setCheckable(true);
    cumulative->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));
    cumulative->setChecked(m_settings->chartsCumulative());
    connect(cumulative, &QAction::toggled, live, &LivePage::setCumulative);
    connect(live, &LivePage::cumulativeToggled, cumulative, &QAction::setChecked);
    view->addAction(tr("&Reset zoom"), QKeySequence(Qt::CTRL | Qt::Key_0), live, &LivePage::resetZoom);
    view->addSeparator();
    m_editorAction = view->addAction(tr("Experiment &editor"));
    m_editorAction->setCheckable(true);
    m_editorAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_editorAction->setToolTip(tr("Show or hide the experiment editor; hidden, the charts get the whole window"));
    m_editorAction->setChecked(m_settings->editorVisible());
    connect(m_editorAction, &QAction::toggled, this, [this](bool visible) {
        m_editor->setVisible(visible);
        m_settings->setEditorVisible(visible);
    });

    QMenu* help = m_window->menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About knobscope"), this, [this] {
        QMessageBox::about(m_window, tr("About knobscope"),
            tr("<p><b>knobscope %1</b></p><p>Benchmarks LLM inference servers and shows what one knob does to "
               "latency, throughput and output stability.</p><p>Formats, metrics and the simulator are described "
               "in the docs/ folder of the source.</p>")
                .arg(QStringLiteral(KNOBSCOPE_VERSION)));
    });
}

void MainMenus::rebuildRecent()
{
    m_recentMenu->clear();
    for (const QString& path : m_settings->recentFiles())
        m_recentMenu->addAction(path, this, [this, path] { emit recentFileChosen(path); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainMenus::setRunning(bool running)
{
    m_runAction->setEnabled(!running);
    m_stopAction->setEnabled(running);
}

} // namespace ks
