// Run and Stop: the spec is validated, then the RunController starts the experiment.
#include "mainwindow.h"

#include "experimentdocument.h"
#include "experimenteditor.h"
#include "livepage.h"
#include "mainmenus.h"
#include "replaybar.h"
#include "replaycontroller.h"
#include "runcontroller.h"
#include "settings.h"

#include <algorithm>

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTabWidget>

namespace ks {

void MainWindow::run()
{
    if (isRunning())
        return;
    m_replay->stop();
    m_replayBar->hide();
    m_editor->validateNow();
    auto parsed = m_document->validate();
    if (!std::holds_alternative<ExperimentSpec>(parsed)) {
        const QString problems = m_editor->problemTexts().join(QLatin1Char('\n'));
        m_status->setText(tr("The experiment has problems; they are marked in the editor."));
        m_menus->editorAction()->setChecked(true); // a hidden editor cannot show them
        log(tr("Not started:\n%1").arg(problems));
        return;
    }
    const ExperimentSpec& spec = std::get<ExperimentSpec>(parsed);
    const QString dir = m_settings->runDirectory();
    QDir().mkpath(dir);
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    m_runFile = QDir(dir).filePath(QStringLiteral("%1-%2.jsonl").arg(spec.name, stamp));
    m_live->clear();
    m_liveFile.reset();
    m_currentRun.clear();
    m_totalIsEstimate
        = std::any_of(spec.arms.begin(), spec.arms.end(), [](const ArmSpec& a) { return a.sweep.has_value(); });
    m_experimentClock.start();
    log(tr("Running %1 into %2").arg(spec.name, m_runFile));
    m_runningSpec = spec;
    m_controller->start(spec, m_runFile);
    m_editor->setRunning(true);
    m_pages->setCurrentWidget(m_live);
    m_status->setText(tr("Starting %1 …").arg(spec.name));
    updateActions();
}

void MainWindow::stop()
{
    if (!isRunning())
        return;
    log(tr("Stopping: the current arm ends cleanly and the file is closed"));
    m_status->setText(tr("Stopping …"));
    m_controller->stop();
}

bool MainWindow::isRunning() const
{
    return m_controller->isRunning();
}

} // namespace ks
