// Run and Stop: the spec is validated, a server command from a file nobody
// trusted is shown and asked about first (LaunchTrust decides), then the
// RunController starts the experiment.
#include "mainwindow.h"

#include "editor/experimentdocument.h"
#include "editor/experimenteditor.h"
#include "editor/launchtrustdialog.h"
#include "feeds/replaycontroller.h"
#include "feeds/runcontroller.h"
#include "mainmenus.h"
#include "pages/livepage.h"
#include "pages/replaybar.h"
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
    if (m_trustDialog && m_trustDialog->isVisible()) {
        m_trustDialog->raise(); // still asking about this experiment
        return;
    }
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
    if (const LaunchPlan plan = currentPlan(); m_trust.mustAsk(plan)) {
        askToTrust(spec, plan);
        return;
    }
    startRun(spec);
}

void MainWindow::startRun(const ExperimentSpec& spec)
{
    if (isRunning())
        return;
    const QString dir = m_settings->runDirectory();
    QDir().mkpath(dir);
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    m_runFile = QDir(dir).filePath(QStringLiteral("%1-%2.jsonl").arg(spec.name, stamp));
    m_live->clear();
    m_liveFile.reset();
    m_liveExperiment.reset();
    m_liveRuns.clear();
    m_pendingPages.reset();
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

LaunchPlan MainWindow::currentPlan() const
{
    const auto parsed = parseExperimentSpec(m_document->toBytes());
    if (const auto* spec = std::get_if<ExperimentSpec>(&parsed))
        return launchPlan(*spec, QDir::currentPath()); // the launcher starts servers in this directory
    return {};
}

void MainWindow::askToTrust(const ExperimentSpec& spec, const LaunchPlan& plan)
{
    auto* dialog = new LaunchTrustDialog(plan, m_specPath, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    m_trustDialog = dialog;
    log(tr("Asking before starting the server command of %1 (not trusted yet):\n%2")
            .arg(m_specPath.isEmpty() ? spec.name : m_specPath, dialog->commandText()));
    connect(dialog, &QDialog::accepted, this, [this, spec, plan] {
        m_trust.trust(plan);
        log(tr("Trusted: these commands run without asking from now on"));
        startRun(spec);
    });
    connect(dialog, &QDialog::rejected, this, [this] {
        m_status->setText(tr("Not run: the server command is not trusted. Edit the experiment, or point it at a "
                             "server you started yourself."));
        log(tr("Not run: the server command was not trusted"));
    });
    dialog->open();
}

} // namespace ks
