#pragma once

#include "load/loadrunner.h"
#include "metrics/aggregator.h"

#include <QObject>
#include <QTimer>

namespace ks {

class ReplayBar;
class ReplayFeed;

/// Plays a saved run file into the dashboard with the same signals as
/// RunController, so the window treats replayed and live data alike. It owns the
/// core ReplayFeed and keeps the replay toolbar (speed, pause, scrub) in step.
class ReplayController : public QObject {
    Q_OBJECT
public:
    ReplayController(ReplayBar* bar, QObject* parent = nullptr);

    /// Starts replaying `path` from the beginning.
    void start(const QString& path);
    /// Replays the current file again, as fast as possible up to `fraction` of it, then at the set speed.
    void restart(double fraction);
    void stop();
    QString path() const { return m_path; }
    bool isActive() const { return m_feed != nullptr; }

signals:
    /// The charts must be cleared: a replay (re)starts from the beginning.
    void replayStarting(const QString& path);
    void runStarted(const QString& run, int index, int total);
    void progressed(const ks::LoadProgress& progress);
    void snapshotReady(const QString& run, const ks::RunSnapshot& snapshot);
    void runFinished(const QString& run, const QByteArray& summaryJson);
    void serverLine(const QString& line);
    /// `message` lists the lines that could not be used, empty for a clean file.
    void finished(const QString& message);

private:
    ReplayBar* m_bar;
    ReplayFeed* m_feed = nullptr;
    QString m_path;
    QTimer m_position;
};

} // namespace ks
