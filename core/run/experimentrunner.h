#pragma once

#include "load/loadrunner.h"
#include "run/armplan.h"
#include "run/experimentspec.h"
#include "run/metricsscraper.h"
#include "run/runsnapshotter.h"
#include "run/serverlauncher.h"
#include "store/jsonlwriter.h"
#include "store/runfile.h"
#include "workload/probeset.h"

#include <QObject>
#include <QTimer>

#include <memory>
#include <optional>

namespace ks {

/// Runs every arm of an experiment against every configuration, in spec order,
/// into one JSONL file (docs/formats.md): starts and restarts the server when
/// the spec has one, scrapes /metrics during each arm, and writes a summary per
/// arm that says whether the arm ever made the server queue.
class ExperimentRunner : public QObject {
    Q_OBJECT
public:
    ExperimentRunner(ExperimentSpec spec, QString outPath, QObject* parent = nullptr);
    ~ExperimentRunner() override;

    /// Opens the run file and starts; returns an error instead when it cannot.
    QString start();
    /// Ends the current arm cleanly (in-flight requests cancelled), stops the
    /// server (also one still starting: its readiness wait ends at once) and
    /// closes the file; finished() follows.
    void stop();
    /// For a second Ctrl-C: writes out what is queued for the file, closes it
    /// and kills the server without waiting, so the caller can exit now.
    void abandon();
    /// Empty unless a write or flush of the run file failed (names the file).
    QString fileError() const { return m_writer.error(); }
    /// Fields added to every `run` line (a shard's identity: docs/distributed.md).
    void setRunLineExtra(nlohmann::json extra) { m_runLineExtra = std::move(extra); }

signals:
    /// The `experiment` line as written, before the first arm.
    void experimentStarted(const QByteArray& json);
    void armStarted(const QString& run, int index, int total);
    /// Progress of the current arm, at most 10 times a second (with the snapshots).
    void progressed(const ks::LoadProgress& progress);
    /// Live statistics of the current arm, at most 10 times a second.
    void snapshotReady(const QString& run, const ks::RunSnapshot& snapshot);
    void armFinished(const QString& run, const QByteArray& summaryJson);
    /// A finished run as the file holds it (run line, records, summary), so a
    /// window shows it without reading back the file that is still being written.
    void runRecorded(std::shared_ptr<const ks::RunData> run);
    void serverLine(const QString& line);
    /// Request records once they are in the run file (a live exporter's feed).
    void recordsWritten(const QString& run, const QVector<ks::RequestRecord>& records);
    /// `message` is empty on success; otherwise what went wrong (the run file
    /// stays valid). A failed write of the run file stops the run and comes first.
    void finished(const QString& message);

private:
    /// What follows once the server has stopped; a later, stronger request wins.
    enum class AfterServerStop { StartConfig, LaunchServer, Finish };

    void startConfig();
    /// Stops the server if it runs, starts it again, then continues with startArm().
    void restartServer();
    void launchServer();
    void startArm();
    std::size_t stepsPerConfig() const;
    /// Runs per configuration if no sweep stops early (sweep steps and repeats count one each).
    std::size_t runsPerConfig() const;
    /// Writes the instant into the file as a `tick` line and sends the snapshot.
    void takeSnapshot();
    void onArmFinished(const LoadResult& result);
    /// The arm's records as the file holds them: the file is the store, so a
    /// long arm keeps no record in memory, and the summary is exact.
    std::vector<RequestRecord> readBackRecords();
    void endConfig();
    void finishExperiment();
    void serverEvent(const QString& event, const QString& detail);
    void writeServerSample(const ServerSample& sample);
    void stopServerThen(AfterServerStop next);
    void onServerStopped();
    /// Writes out the queued lines; a failure stops the run.
    void flushFile();
    void onWriteFailed();

    ExperimentSpec m_spec;
    QString m_outPath;
    JsonlWriter m_writer;
    std::unique_ptr<ServerLauncher> m_launcher;
    std::unique_ptr<LoadRunner> m_load;
    std::unique_ptr<MetricsScraper> m_scraper;
    std::size_t m_config = 0;
    std::size_t m_arm = 0;
    std::unique_ptr<ArmPlan> m_plan; ///< the runs of the current load arm (sweep steps, repeats)
    nlohmann::json m_runFields; ///< what the plan adds to the current run line
    int m_runInConfig = 0; ///< runs started for this configuration, for armStarted's index
    QString m_run;
    QString m_armName;
    int m_probeRestart = -1; ///< the probe pass now running (restarts before it), -1 for load arms
    bool m_restartedForProbes = false;
    std::shared_ptr<const ProbeSet> m_probeSet;
    qint64 m_t0Us = 0;
    nlohmann::json m_runLine; ///< of the current arm, as written
    qint64 m_runOffset = 0; ///< where the current arm's lines start in the file
    RunSnapshotter m_snapshots;
    QTimer m_snapshotTimer;
    LoadProgress m_lastProgress;
    bool m_progressDirty = false;
    double m_maxWaiting = -1;
    int m_samples = 0;
    int m_samplesWaiting = 0;
    double m_maxRunning = -1;
    QString m_metricsProblem;
    QString m_armProblem; ///< the server died during this arm
    QStringList m_serverWarnings; ///< about the launched server's command (servercommandcheck.h)
    QStringList m_problems; ///< per experiment, for the final message
    bool m_stopRequested = false;
    std::optional<AfterServerStop> m_afterServerStop;
    bool m_writeFailed = false;
    QStringList m_unsavedSummaries; ///< runs whose summary line could not be written
    bool m_serverUp = false;
    bool m_armRunning = false; ///< between the load's start and its end: server events get a run time
    bool m_inMetricsGap = false;
    nlohmann::json m_runLineExtra = nlohmann::json::object();
};

} // namespace ks

Q_DECLARE_METATYPE(std::shared_ptr<const ks::RunData>)
