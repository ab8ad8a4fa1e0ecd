#pragma once

#include "load/loadrunner.h"
#include "source/jsonlreplay.h"
#include "source/runsnapshotter.h"
#include "source/runsource.h"

#include <QObject>

#include <memory>

namespace ks {

/// The RunSource of a saved run file: the same typed events a live experiment
/// sends (ExperimentRunner), so the dashboard fills from a file exactly as it
/// did live. JsonlReplay reads the file; each line's JSON is parsed once there. Records, scrapes and
/// probe outputs flow through the core RunSnapshotter, and a snapshot is taken
/// at each `tick` line, where the live run took one. A file without ticks
/// (written before they existed, or by another tool) gets a snapshot each time
/// the replay's run time passes another 100 ms of request end times, plus one
/// at the end of every run.
class ReplayFeed : public RunSource {
    Q_OBJECT
public:
    ReplayFeed(QString path, double speed, QObject* parent = nullptr);

    void start();
    void stop() override;
    /// Stops, drops every connection from its signals (so no listener hears the
    /// stop) and deletes itself once control is back in the event loop, so a
    /// listener may call it from one of the feed's own signals.
    void discard();
    void setPaused(bool paused);
    void setSpeed(double speed);
    /// Plays as fast as possible until `bytes` of the file are read, then at the set speed (scrubbing).
    void fastForwardTo(qint64 bytes);
    qint64 bytesRead() const { return m_replay.bytesRead(); }
    qint64 bytesTotal() const { return m_replay.bytesTotal(); }

private:
    void onRunStarted(const RunInfo& info);
    void onRecords(const QVector<RequestRecord>& records);
    void onTick(const QString& run, qint64 tUs);
    void emitSnapshot(qint64 runTimeUs);
    void endRun();

    JsonlReplay m_replay;
    double m_speed;
    qint64 m_fastUntil = -1;
    RunSnapshotter m_snapshots;
    QString m_run;
    int m_runIndex = -1;
    bool m_ticks = false; ///< the run's snapshots are in the file
    qint64 m_runTimeUs = 0; ///< latest request end seen in this run
    qint64 m_nextSnapshotUs = 0; ///< without ticks
    LoadProgress m_progress;
    QStringList m_issues;
};

} // namespace ks
