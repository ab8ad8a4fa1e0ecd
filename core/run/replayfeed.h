#pragma once

#include "drift/drifttally.h"
#include "load/loadrunner.h"
#include "metrics/aggregator.h"
#include "run/jsonlreplay.h"

#include <QObject>

#include <memory>

namespace ks {

/// Turns a saved run file into the same events a live experiment sends
/// (ExperimentRunner's armStarted/progressed/snapshotReady/armFinished), so
/// the dashboard fills from a file exactly as it did live. Records flow through
/// the core Aggregator; a snapshot is taken each time the replay's run time
/// passes another 100 ms (500 ms when replaying as fast as possible), plus one
/// at the end of every run.
class ReplayFeed : public QObject {
    Q_OBJECT
public:
    ReplayFeed(QString path, double speed, QObject* parent = nullptr);

    void start();
    void stop();
    void setPaused(bool paused);
    void setSpeed(double speed);
    /// Plays as fast as possible until `bytes` of the file are read, then at the set speed (scrubbing).
    void fastForwardTo(qint64 bytes);
    qint64 bytesRead() const { return m_replay.bytesRead(); }
    qint64 bytesTotal() const { return m_replay.bytesTotal(); }

signals:
    void runStarted(const QString& run, int index, int total);
    void progressed(const ks::LoadProgress& progress);
    void snapshotReady(const QString& run, const ks::RunSnapshot& snapshot);
    void runFinished(const QString& run, const QByteArray& summaryJson);
    void issueFound(qint64 line, const QString& message);
    /// What the live run showed on its Log page: server output and lifecycle events.
    void serverLine(const QString& line);
    void finished(const QString& message);

private:
    void onRunStarted(const RunInfo& info);
    void onRecords(const QVector<RequestRecord>& records);
    void emitSnapshot();
    void endRun();

    JsonlReplay m_replay;
    double m_speed;
    qint64 m_fastUntil = -1;
    std::unique_ptr<Aggregator> m_aggregator;
    QString m_run;
    QString m_config;
    QString m_model;
    int m_probeRestart = -1;
    int m_runIndex = -1;
    qint64 m_runTimeUs = 0; ///< latest request end seen in this run
    qint64 m_nextSnapshotUs = 0;
    LoadProgress m_progress;
    double m_lastRunning = -1, m_lastWaiting = -1, m_lastKv = -1;
    DriftTally m_drift;
    QStringList m_issues;
};

} // namespace ks
