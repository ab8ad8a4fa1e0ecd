#include "mainwindow.h"

#include "baselinecontrol.h"
#include "editor/experimentdocument.h"
#include "editor/experimenteditor.h"
#include "editor/launchgate.h"
#include "feeds/replaycontroller.h"
#include "feeds/runcontroller.h"
#include "feeds/runfileloader.h"
#include "import/resultfile.h"
#include "library/runcatalogue.h"
#include "librarylink.h"
#include "mainmenus.h"
#include "pages/comparepage.h"
#include "pages/driftpage.h"
#include "pages/livepage.h"
#include "pages/livesearchpanel.h"
#include "pages/replaybar.h"
#include "pages/runspage.h"
#include "runstatustext.h"
#include "settings.h"
#include "source/runsource.h"
#include "specfiles.h"
#include "steeringlink.h"
#include "uiprofile.h"
#include "windowplacement.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

namespace ks {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_settings(new Settings(this))
    , m_document(new ExperimentDocument(this))
    , m_editor(new ExperimentEditor(m_document, this))
    , m_controller(new RunController(this))
    , m_live(new LivePage(this))
    , m_log(new QPlainTextEdit(this))
    , m_loader(new RunFileLoader(this))
    , m_compare(new ComparePage(m_loader, this))
    , m_drift(new DriftPage(this))
    , m_runs(new RunsPage(RunCatalogue::defaultPath(), this))
    , m_replayBar(new ReplayBar(this))
    , m_replay(new ReplayController(m_replayBar, this))
    , m_pages(new QTabWidget(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_status(new QLabel(this))
    , m_steering(new SteeringLink(m_live, m_controller, this))
    , m_baseline(new BaselineControl(m_live, this))
    , m_gate(new LaunchGate(m_document, m_editor, m_settings, this))
    , m_specFiles(new SpecFiles(m_document, m_gate, m_settings, this))
    , m_library(new LibraryLink(m_runs, m_loader, this))
{
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(20000);
    m_log->setFont(QFont(QStringLiteral("monospace")));
    m_pages->addTab(m_live, tr("&Live"));
    m_pages->addTab(m_compare, tr("&Compare"));
    m_pages->addTab(m_drift, tr("&Drift"));
    m_pages->addTab(m_runs, tr("R&uns"));
    m_pages->addTab(m_log, tr("L&og"));
    m_splitter->addWidget(m_editor);
    m_splitter->addWidget(m_pages);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    setCentralWidget(m_splitter);
    statusBar()->addWidget(m_status, 1);
    m_status->setText(tr("Ready. Press Run (Ctrl+R) to start the experiment."));

    // The live experiment: its runner's signals come queued from the worker thread.
    connect(m_controller, &RunController::sourceStarted, this, [this](RunSource* source) {
        connectSource(source);
        connect(source, &RunSource::experimentStarted, this, [this](const ExperimentInfo& info) {
            m_liveExperiment = std::make_shared<const nlohmann::json>(info.line);
        });
        connect(source, &RunSource::runRecorded, this, [this](std::shared_ptr<const RunData> run) {
            if (!m_liveExperiment)
                return;
            const uiprofile::ArmEndTimer timer("record", int(m_liveRuns.size()) + 1);
            m_liveRuns.push_back(std::move(run));
            m_loader->showLive(m_liveExperiment, m_liveRuns, m_runFile); // Compare and Drift follow arm by arm
        });
    });
    connect(m_controller, &RunController::finished, this, &MainWindow::onFinished);
    connect(m_gate, &LaunchGate::approved, this, &MainWindow::startRun);
    connect(m_specFiles, &SpecFiles::pathChanged, this, &MainWindow::updateTitle);
    connect(m_specFiles, &SpecFiles::logged, this, &MainWindow::log);
    connect(m_specFiles, &SpecFiles::recentChanged, this, [this] {
        if (m_menus)
            m_menus->rebuildRecent();
    });
    connect(m_specFiles, &SpecFiles::saved, this,
        [this](const QString& path) { statusBar()->showMessage(tr("Saved %1").arg(path), 4000); });
    connect(m_gate, &LaunchGate::logged, this, &MainWindow::log);
    connect(m_gate, &LaunchGate::invalid, this, [this](const QString& problems) {
        m_status->setText(tr("The experiment has problems; they are marked in the editor."));
        m_menus->editorAction()->setChecked(true); // a hidden editor cannot show them
        log(tr("Not started:\n%1").arg(problems));
    });
    connect(m_gate, &LaunchGate::declined, this, [this] {
        m_status->setText(tr("Not run: the server command is not trusted. Edit the experiment, or point it at a "
                             "server you started yourself."));
        log(tr("Not run: the server command was not trusted"));
    });
    connect(m_steering, &SteeringLink::steered, this, &MainWindow::log);
    connect(m_steering, &SteeringLink::refused, m_status, &QLabel::setText);
    connect(m_pages, &QTabWidget::currentChanged, this, [this] {
        if (m_pages->currentWidget() == m_compare || m_pages->currentWidget() == m_drift)
            showPendingPages();
    });
    // The run library: what this window runs and opens is catalogued off the GUI thread.
    m_runs->setRunDirectory(m_settings->runDirectory());
    m_runs->reload();
    connect(m_runs, &RunsPage::openRequested, this, &MainWindow::openRunFile);
    connect(m_library, &LibraryLink::logged, this, &MainWindow::log);
    connect(
        m_library, &LibraryLink::statusMessage, this, [this](const QString& t) { statusBar()->showMessage(t, 8000); });
    connect(m_library, &LibraryLink::compareStarted, this, [this] { m_pages->setCurrentWidget(m_compare); });
    connect(m_document, &ExperimentDocument::changed, this, &MainWindow::updateTitle);
    connect(m_baseline, &BaselineControl::status, m_status, &QLabel::setText);
    connect(m_baseline, &BaselineControl::logged, this, &MainWindow::log);
    connect(m_baseline, &BaselineControl::changed, this, &MainWindow::baselineChanged);
    m_live->setCumulative(m_settings->chartsCumulative());
    connect(m_live, &LivePage::cumulativeToggled, m_settings, &Settings::setChartsCumulative);

    addToolBar(Qt::TopToolBarArea, m_replayBar);
    m_replayBar->hide();
    connect(m_replay, &ReplayController::replayStarting, this, [this](const QString& path) {
        m_live->clear();
        m_currentRun.clear();
        m_experimentClock.start();
        log(tr("Replaying %1").arg(path));
    });
    connect(m_replay, &ReplayController::sourceStarted, this, [this](RunSource* source) {
        connectSource(source);
        connect(source, &RunSource::finished, this, [this](const QString& message) {
            m_status->setText(tr("Replay of %1 finished").arg(QFileInfo(m_replay->path()).fileName()));
            if (!message.isEmpty())
                log(tr("Lines the replay skipped:\n%1").arg(message));
            emit replayEnded(message);
        });
    });
    connect(m_loader, &RunFileLoader::progress, this,
        [this](int percent, const QString& what) { statusBar()->showMessage(tr("%1 … %2 %").arg(what).arg(percent)); });
    connect(m_loader, &RunFileLoader::loaded, this, &MainWindow::onRunFileLoaded);
    setAcceptDrops(true);

    m_menus = new MainMenus(this, m_settings, m_editor, m_replay);
    connect(m_menus, &MainMenus::newExperimentRequested, m_specFiles, &SpecFiles::newExperiment);
    connect(m_menus, &MainMenus::openExperimentRequested, m_specFiles, &SpecFiles::openDialog);
    connect(m_menus, &MainMenus::saveRequested, m_specFiles, &SpecFiles::save);
    connect(m_menus, &MainMenus::saveAsRequested, m_specFiles, &SpecFiles::saveAsDialog);
    connect(m_menus, &MainMenus::recentFileChosen, this, &MainWindow::openPath);
    if (!restoreGeometry(m_settings->windowGeometry())) {
        // First start: size the window to the screen (closeEvent saves it from then on).
        if (const QScreen* screen = QGuiApplication::primaryScreen()) {
            const QRect available = screen->availableGeometry();
            resize(firstWindowSize(available));
            move(available.center() - rect().center());
        }
    }
    restoreState(m_settings->windowState());
    if (!m_settings->splitterState().isEmpty()) {
        m_splitter->restoreState(m_settings->splitterState());
    } else {
        m_placeEditorOnShow = true; // eventFilter: the splitter has its final width only once shown
        m_splitter->installEventFilter(this);
    }
    m_editor->setVisible(m_settings->editorVisible());
    const QString last = m_settings->lastSpecPath();
    if (last.isEmpty() || !QFileInfo::exists(last) || last.endsWith(QLatin1String(".jsonl")) || !openSpec(last))
        loadBundled(QStringLiteral("one-knob"));
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::connectSource(RunSource* source)
{
    connect(source, &RunSource::runStarted, this, &MainWindow::onRunStarted);
    connect(source, &RunSource::progressed, this, &MainWindow::onProgress);
    connect(source, &RunSource::snapshotReady, this, &MainWindow::onSnapshot);
    connect(source, &RunSource::runFinished, this, &MainWindow::onRunFinished);
    connect(source, &RunSource::roundDecided, m_live, &LivePage::addRoundDecision);
    connect(source, &RunSource::experimentStarted, m_live->searchPanel(),
        [this](const ExperimentInfo& info) { m_live->searchPanel()->setExperiment(info.line); });
    connect(source, &RunSource::searchProbed, m_live->searchPanel(), &LiveSearchPanel::addProbe);
    connect(source, &RunSource::searchEnded, m_live->searchPanel(), &LiveSearchPanel::finish);
    connect(source, &RunSource::serverLine, this, [this](const QString& line) { log(line); });
}

bool MainWindow::openSpec(const QString& path, LaunchTrust::Origin origin)
{
    return m_specFiles->open(path, origin);
}

bool MainWindow::saveSpec(const QString& path)
{
    return m_specFiles->saveTo(path);
}

void MainWindow::loadBundled(const QString& name)
{
    openSpec(QStringLiteral(":/experiments/%1.json").arg(name));
}

void MainWindow::run()
{
    if (isRunning())
        return;
    if (m_gate->isAsking()) {
        m_gate->raise(); // still asking about this experiment
        return;
    }
    m_replay->stop();
    m_replayBar->hide();
    m_gate->request(m_specFiles->path());
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

void MainWindow::onRunStarted(const RunInfo& info)
{
    m_currentRun = info.run;
    m_runIndex = info.index;
    m_runTotal = info.total;
    uiprofile::write("arm_start", "\"arm\":" + std::to_string(info.index + 1));
    m_live->runStarted(info.run);
    log(armStartedLine(info.run, info.index, info.total, m_totalIsEstimate));
    m_steering->runStarted(info.run, isRunning() ? &m_runningSpec : nullptr);
}

void MainWindow::onProgress(const LoadProgress& p)
{
    m_live->progressed(m_currentRun, p.done, p.expected);
    m_status->setText(tr("%1 (%2) · %3%4 requests · %5 errors · %6 req/s · elapsed %7%8")
                          .arg(m_currentRun, armPosition(m_runIndex, m_runTotal, m_totalIsEstimate))
                          .arg(p.done)
                          .arg(p.expected > 0 ? QStringLiteral("/%1").arg(p.expected) : QString())
                          .arg(p.errors)
                          .arg(m_reqPerS, 0, 'f', 1)
                          .arg(clockText(double(m_experimentClock.elapsed()) / 1000.0))
                          .arg(armEta(p)));
}

void MainWindow::onSnapshot(const QString& run, const RunSnapshot& snapshot)
{
    m_reqPerS = snapshot.windowReqPerS;
    m_live->addSnapshot(run, snapshot);
}

void MainWindow::onRunFinished(const QString& run, const RunSummary& summary)
{
    const uiprofile::ArmEndTimer timer("summary", m_runIndex + 1);
    m_live->runFinished(run, summary);
    log(runFinishedLine(run, summary));
}

void MainWindow::onFinished(const QString& message)
{
    m_editor->setRunning(false);
    m_steering->stopped();
    updateActions();
    const QString done = message.isEmpty() ? tr("Experiment finished") : tr("Experiment ended with problems");
    m_status->setText(
        tr("%1 · %2 · run file %3").arg(done, clockText(double(m_experimentClock.elapsed()) / 1000.0), m_runFile));
    log(message.isEmpty() ? done : done + QStringLiteral(":\n") + message);
    showPendingPages();
    if (m_liveRuns.empty()) {
        m_loader->load(m_runFile); // nothing was recorded: the file says why (or that it is empty)
    } else {
        m_live->addBaselineCandidate(m_runFile); // a baseline for the next run
        m_library->catalogue(m_runFile); // the file is complete and closed
    }
    emit runEnded(message);
    if (m_closeWhenStopped)
        close();
}

void MainWindow::onRunFileLoaded(std::shared_ptr<const LoadedRunFile> result)
{
    const bool live = result->live;
    // Profiling: arm 0 is an opened file; its next frame is the one that shows it.
    const uiprofile::ArmEndTimer timer(
        result->intervals ? "intervals" : "result", live ? int(result->file->runs.size()) : 0);
    if (!live && !result->intervals)
        uiprofile::markNextFrame("file");
    if (live) {
        m_liveFile = result->file;
        m_live->showKnobRange(*result); // the knob chart grows a point per finished arm
    }
    if (live && isRunning() && m_pages->currentWidget() != m_compare && m_pages->currentWidget() != m_drift) {
        m_pendingPages = result;
    } else {
        m_pendingPages.reset();
        m_compare->setResult(result);
        m_drift->setResult(result);
    }
    if (!result->error.isEmpty()) {
        log(result->error);
        statusBar()->showMessage(result->error);
        return;
    }
    if (result->intervals || live)
        return; // the notes are an opened file's, given once with its first result
    if (result->otherPath.isEmpty() && result->picks.isEmpty())
        m_library->catalogue(result->path, result->file); // an opened file that reads: into the run library
    if (result->path == m_replay->path() && result->otherPath.isEmpty() && result->picks.isEmpty() && !isRunning()) {
        // The editor shows the experiment that produced the file, ready to run again.
        if (m_specFiles->showFromRunFile(result->file->spec()))
            setWindowTitle(QStringLiteral("knobscope — %1").arg(QFileInfo(result->path).fileName()));
    }
    const QStringList notes = runFileNotes(*result->file);
    log(tr("Loaded %1: %2 runs").arg(result->path).arg(result->file->runs.size())
        + (notes.isEmpty() ? QString() : QStringLiteral("\n  ") + notes.join(QStringLiteral("\n  "))));
    statusBar()->showMessage(notes.isEmpty()
            ? tr("Loaded %1").arg(result->path)
            : tr("Loaded %1 with %2 notes (see the Log page)").arg(result->path).arg(notes.size()),
        8000);
}

void MainWindow::setBaselineFile(const QString& path)
{
    m_baseline->setFile(path);
}

void MainWindow::showPendingPages()
{
    if (const std::shared_ptr<const LoadedRunFile> result = std::exchange(m_pendingPages, nullptr)) {
        m_compare->setResult(result);
        m_drift->setResult(result);
    }
}

void MainWindow::openPath(const QString& path)
{
    if (path.endsWith(QLatin1String(".jsonl"), Qt::CaseInsensitive))
        openRunFile(path);
    else
        openSpec(path);
}

void MainWindow::openRunFile(const QString& path)
{
    if (isRunning()) {
        statusBar()->showMessage(tr("Stop the running experiment before opening a run file"), 5000);
        return;
    }
    uiprofile::write("open", {});
    m_settings->addRecentFile(path);
    m_menus->rebuildRecent();
    m_loader->load(path);
    QString error;
    const ResultFormat format = detectResultFormat(path, &error);
    if (format != ResultFormat::Knobscope && format != ResultFormat::Unknown) {
        // Another tool's result has no timeline to replay: its runs go to the Compare page.
        log(tr("%1 is a %2: imported for comparison (docs/metrics.md maps its fields)")
                .arg(path, resultFormatName(format)));
        m_pages->setCurrentWidget(m_compare);
        return;
    }
    m_replay->start(path);
    m_pages->setCurrentWidget(m_live);
}

void MainWindow::compareWith(const QString& otherPath)
{
    const QString first = m_replay->path().isEmpty() ? m_runFile : m_replay->path();
    if (first.isEmpty() || isRunning())
        return;
    log(tr("Comparing %1 with %2: configurations are labelled LABEL @FILE").arg(first, otherPath));
    m_loader->load(QStringList { first, otherPath });
    m_pages->setCurrentWidget(m_compare);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        openPath(urls.first().toLocalFile());
    if (urls.size() == 2 && urls[1].isLocalFile() && urls[1].toLocalFile().endsWith(QLatin1String(".jsonl")))
        compareWith(urls[1].toLocalFile()); // two run files: the second is compared with the first
}

void MainWindow::log(const QString& line)
{
    m_log->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss ")) + line);
}

void MainWindow::updateTitle()
{
    const QString name = m_specFiles->path().isEmpty() ? tr("new experiment")
        : m_specFiles->path().startsWith(QLatin1Char(':'))
        ? tr("%1 (bundled)").arg(QFileInfo(m_specFiles->path()).fileName())
        : QFileInfo(m_specFiles->path()).fileName();
    setWindowTitle(QStringLiteral("knobscope — %1").arg(name));
}

void MainWindow::updateActions()
{
    m_menus->setRunning(isRunning());
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    // First start: size the editor on each resize of the splitter until it has
    // the window's width. Sizes set earlier are scaled to the splitter's width
    // at that moment, and the growth after that would all go to the charts.
    if (watched == m_splitter && event->type() == QEvent::Resize && m_placeEditorOnShow && isVisible()) {
        const int total = m_splitter->width();
        const int editor = firstEditorWidth(total, m_editor->sizeHint().width());
        m_splitter->setSizes({ editor, std::max(1, total - editor) });
        if (total >= width() - 2 * m_splitter->handleWidth())
            m_placeEditorOnShow = false;
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    m_settings->setSplitterState(m_splitter->saveState());
    if (isRunning()) {
        // Closing mid-run stops the arm first so the run file ends cleanly.
        m_closeWhenStopped = true;
        stop();
        event->ignore();
        return;
    }
    event->accept();
}

} // namespace ks
