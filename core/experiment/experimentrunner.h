#pragma once

#include "experiment/armplan.h"
#include "experiment/armsteering.h"
#include "experiment/searchdriver.h"
#include "experiment/serversession.h"
#include "experiment/visitorder.h"
#include "load/loadrunner.h"
#include "source/runsnapshotter.h"
#include "source/runsource.h"
#include "spec/experimentspec.h"
#include "store/jsonlwriter.h"
#include "store/runfile.h"
#include "telemetry/gputelemetry.h"
#include "telemetry/metricsscraper.h"
#include "workload/probeset.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace ks {

/// Runs every arm of an experiment against every configuration, in the order
/// of its VisitOrder (interleaved rounds, or blocked in spec order), into
/// one JSONL file (docs/formats.md): starts and restarts the server when
/// the spec has one, scrapes /metrics during each arm, and writes a summary per
/// arm that says whether the arm ever made the server queue. It is the live
/// RunSource: the dashboard and the terminal follow it through those signals.
class ExperimentRunner : public RunSource {
    Q_OBJECT
public:
    ExperimentRunner(ExperimentSpec spec, QString outPath, QObject* parent = nullptr);
    ~ExperimentRunner() override;

    /// Opens the run file and starts; returns an error instead when it cannot.
    QString start();
    /// Ends the current arm cleanly (in-flight requests cancelled), stops the
    /// server (also one still starting: its readiness wait ends at once) and
    /// closes the file; finished() follows.
    void stop() override;
    /// For a second Ctrl-C: writes out what is queued for the file, closes it
    /// and kills the server without waiting, so the caller can exit now.
    void abandon();
    /// Empty unless a write or flush of the run file failed (names the file).
    QString fileError() const { return m_writer.error(); }
    /// Live control (docs/experiments.md, "Steering"): the running concurrency
    /// arm goes on with `concurrency` streams as a new segment, a run of its
    /// own named ARM~cN whose run line carries `control`. Returns why not
    /// instead: no load arm running, a rate arm, a sweep or repeats, a bad value.
    /// The setting in force already is no change and no segment.
    QString steer(int concurrency);
    /// The same for a rate arm: arrivals at `rate` per second from now on, as
    /// a segment named ARM~rR (R as sweep values are written: r2, r4.5).
    QString steerRate(double rate);
    /// Ends the experiment as a duration bound ends an arm: the running arm
    /// sends no more and its requests in flight finish (none is cancelled),
    /// then the server stops and the file closes (`stop` on --control stdin).
    void finishArmGently();
    /// Fields added to every `run` line (a shard's identity: docs/distributed.md).
    void setRunLineExtra(nlohmann::json extra) { m_runLineExtra = std::move(extra); }

signals:
    // RunSource: experimentStarted (the `experiment` line as written, before the
    // first arm), runStarted, progressed, snapshotReady, runFinished, runRecorded,
    // serverLine, roundDecided (repeats that run until decided), finished (a
    // failed write of the run file stops the run and comes first in its
    // message; the run file stays valid). Also:
    /// A server is about to be started: the exact argv and extra environment
    /// (unredacted: the receiver decides what to show where).
    void serverStarting(const ks::ServerLaunch& launch);
    /// Request records once they are in the run file (a live exporter's feed).
    void recordsWritten(const QString& run, const QVector<ks::RequestRecord>& records);

private:
    void startConfig();
    /// Stops the server if it runs, starts it again, then continues with startArm().
    void restartServer();
    void launchServer();
    /// A stop that the runner asked for is done: the experiment goes on (or finishes).
    void onServerStopped(ServerSession::AfterStop next);
    void onServerFailed(const QString& message);
    void startArm();
    /// Asks a server not yet asked for its own version, then startArm().
    void probeServerThenStartArm();
    /// Writes the instant into the file as a `tick` line and sends the snapshot.
    void takeSnapshot();
    void onArmFinished(const LoadResult& result);
    void concludeArm(const LoadResult& result);
    /// Moves the run now going into m_steering's segments (a steer, or the arm's end).
    void endSegment();
    ArmSteering::ArmState armState() const;
    /// After the load took a steer: ends the running segment and writes the new one's run line.
    void startSegment(const ArmSteering::Change& change);
    /// Summarizes a finished run from its records, writes its summary line and
    /// tells the windows; `last`: the arm's last segment (its plan moves on).
    /// `wholeArm`: the arm was not steered (the scraper's histograms are its own).
    void finishRun(ArmSteering::Segment segment, std::vector<RequestRecord> records, const LoadResult& result,
        bool last, bool wholeArm);
    void endConfig();
    /// Hands the ended configuration to the search, and writes the probe's `search_probe` line if it has one.
    void concludeSearchProbe();
    /// Moves past the current visit; a visit that ends a round has the round
    /// judged (repeats that run until decided), and the decision written.
    void nextVisit();
    /// Writes and sends a round's decision (also a stopped experiment's, as it closes).
    void writeRound(const RoundDecision& decision);
    /// The progress of the run starting now (RunInfo index and total).
    int nextRunIndex();
    int runTotal() const;
    void finishExperiment();
    void serverEvent(const QString& event, const QString& detail);
    void writeServerSample(const ServerSample& sample);
    /// Writes out the queued lines; a failure stops the run.
    void flushFile();
    void onWriteFailed();

    ExperimentSpec m_spec;
    QString m_outPath;
    JsonlWriter m_writer;
    ServerSession m_server;
    std::unique_ptr<LoadRunner> m_load;
    VisitOrder m_visits;
    int m_round = 0; ///< of the visit now running (0: blocked)
    std::size_t m_config = 0;
    std::size_t m_arm = 0;
    std::unique_ptr<ArmPlan> m_plan; ///< the runs of the current load arm (sweep steps, repeats)
    nlohmann::json m_runFields; ///< what the plan adds to the current run line
    int m_runInConfig = 0; ///< runs started for this configuration, for runStarted's index
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
    GpuTelemetry m_gpu; ///< nvidia-smi during each arm, where there is one
    LoadProgress m_lastProgress;
    bool m_progressDirty = false;
    ServerTally m_serverTally; ///< the current arm's scrapes
    ArmSteering m_steering; ///< the running arm's settings and earlier segments
    QString m_armProblem; ///< the server died during this arm
    QStringList m_problems; ///< per experiment, for the final message
    bool m_stopRequested = false;
    bool m_writeFailed = false;
    QStringList m_unsavedSummaries; ///< runs whose summary line could not be written
    bool m_armRunning = false; ///< between the load's start and its end: server events get a run time
    nlohmann::json m_runLineExtra = nlohmann::json::object();
    std::unique_ptr<SearchDriver> m_search; ///< set when the spec has a search
};

} // namespace ks
