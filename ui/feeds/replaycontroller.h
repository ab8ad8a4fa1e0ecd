#pragma once

#include <QObject>
#include <QTimer>

namespace ks {

class ReplayBar;
class ReplayFeed;
class RunSource;

/// Plays a saved run file into the dashboard: it owns the core ReplayFeed, a
/// RunSource the window connects to as it does to a live run's
/// (sourceStarted()), and keeps the replay toolbar (speed, pause, scrub) in step.
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
    /// The replay's source, not started yet: connect to it now. A restart (a
    /// seek) discards it, disconnecting every listener, and hands over a new one.
    void sourceStarted(ks::RunSource* source);

private:
    ReplayBar* m_bar;
    ReplayFeed* m_feed = nullptr;
    QString m_path;
    QTimer m_position;
};

} // namespace ks
