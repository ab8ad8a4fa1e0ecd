#pragma once

#include "editor/launchtrust.h"
#include "spec/experimentspec.h"

#include <QElapsedTimer>
#include <QMainWindow>

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QSplitter;
class QTabWidget;

namespace ks {

class BaselineControl;
class ComparePage;
class DriftPage;
class ExperimentDocument;
class ExperimentEditor;
class LaunchGate;
class LibraryLink;
class LivePage;
class MainMenus;
class ReplayBar;
class ReplayController;
class RunFileLoader;
struct RunData;
struct RunFile;
struct LoadedRunFile;
class RunController;
class RunsPage;
class RunSource;
struct RunInfo;
struct RunSummary;
class Settings;
class SpecFiles;
class SteeringLink;
struct LoadProgress;
struct RunSnapshot;

/// Wires the pages together: the experiment editor on the left, the Live,
/// Compare, Drift, Runs and Log pages in the centre, menus, and the status bar. All
/// work happens in the core (RunController's worker thread).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens an experiment file. A bundled experiment or installed template is
    /// trusted as knobscope's own; others are trusted if the user trusted the
    /// same commands before, or with `NamedToRun` (`knobscope SPEC.json --run`).
    bool openSpec(const QString& path, LaunchTrust::Origin origin = LaunchTrust::Origin::File);
    /// Writes the editor's experiment to `path` (File ▸ Save); a trusted experiment stays trusted there.
    bool saveSpec(const QString& path);
    /// Loads the bundled one-knob experiment (the first-start default).
    void loadBundled(const QString& name);
    /// Runs the experiment in the editor. If it would start a server command the
    /// user has not trusted, asks first (a LaunchTrustDialog) and runs only on yes.
    void run();
    void stop();
    bool isRunning() const;
    QString runFilePath() const { return m_runFile; }
    /// What the running (or last) experiment recorded, as the Compare and Drift pages got it.
    std::shared_ptr<const RunFile> liveRunFile() const { return m_liveFile; }
    /// The live runs as the runner handed them over (the latest comparison may lag behind).
    std::size_t liveRunCount() const { return m_liveRuns.size(); }
    /// Replays a saved run file on the Live page and fills Compare and Drift from it.
    void openRunFile(const QString& path);
    /// Compares the open run file with another one (Compare and Drift; the Live page keeps the first).
    void compareWith(const QString& otherPath);
    /// Reads `path` as the Live page's baseline (empty: none); baselineChanged() says when it is drawn.
    void setBaselineFile(const QString& path);

    LivePage* livePage() const { return m_live; }
    ExperimentEditor* editor() const { return m_editor; }
    ExperimentDocument* document() const { return m_document; }
    QTabWidget* pages() const { return m_pages; }
    RunController* controller() const { return m_controller; }
    ComparePage* comparePage() const { return m_compare; }
    DriftPage* driftPage() const { return m_drift; }
    RunsPage* runsPage() const { return m_runs; }
    LibraryLink* library() const { return m_library; }
    RunFileLoader* loader() const { return m_loader; }

signals:
    void runEnded(const QString& message);
    void replayEnded(const QString& message);
    /// A baseline was read and drawn (`error` empty), or could not be used.
    void baselineChanged(const QString& path, const QString& error);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Live and replayed runs reach the pages through the same slots.
    void connectSource(RunSource* source);
    void openPath(const QString& path);
    void startRun(const ExperimentSpec& spec);
    void onRunFileLoaded(std::shared_ptr<const LoadedRunFile> result);
    /// Hands Compare and Drift the live comparison they were spared while hidden.
    void showPendingPages();
    void onRunStarted(const RunInfo& info);
    void onProgress(const LoadProgress& progress);
    void onSnapshot(const QString& run, const RunSnapshot& snapshot);
    void onRunFinished(const QString& run, const RunSummary& summary);
    void onFinished(const QString& message);
    void log(const QString& line);
    void updateTitle();
    void updateActions();

    Settings* m_settings;
    ExperimentDocument* m_document;
    ExperimentEditor* m_editor;
    RunController* m_controller;
    LivePage* m_live;
    QPlainTextEdit* m_log;
    RunFileLoader* m_loader;
    ComparePage* m_compare;
    DriftPage* m_drift;
    RunsPage* m_runs;
    ReplayBar* m_replayBar;
    ReplayController* m_replay;
    QTabWidget* m_pages;
    QSplitter* m_splitter;
    QLabel* m_status;
    MainMenus* m_menus = nullptr;
    SteeringLink* m_steering;
    BaselineControl* m_baseline;
    LaunchGate* m_gate;
    SpecFiles* m_specFiles;
    LibraryLink* m_library;
    QString m_runFile;
    /// The experiment running now, as far as it got: what the runner wrote,
    /// handed over run by run, never read back from the file it is writing.
    /// The runs are shared with the runner and the loader, never copied here.
    std::shared_ptr<const nlohmann::json> m_liveExperiment;
    std::vector<std::shared_ptr<const RunData>> m_liveRuns;
    /// The latest comparison of the live runs (its file is what Compare and Drift show).
    std::shared_ptr<const RunFile> m_liveFile;
    /// A comparison of the live runs that Compare and Drift get once one of them is
    /// in front (or the experiment ends): a page nobody sees is not redrawn per arm.
    std::shared_ptr<const LoadedRunFile> m_pendingPages;
    QString m_currentRun;
    ExperimentSpec m_runningSpec; ///< of the experiment the controller runs
    int m_runIndex = 0;
    int m_runTotal = 0;
    bool m_totalIsEstimate = false; ///< the experiment sweeps: a sweep may stop early
    double m_reqPerS = 0;
    QElapsedTimer m_experimentClock;
    bool m_closeWhenStopped = false;
    bool m_placeEditorOnShow = false; ///< first start: size the editor once the window is laid out
};

} // namespace ks
