#pragma once

#include "runfeed.h"

#include <QTimer>

namespace ks {

class ReplayBar;
class ReplayFeed;

/// Plays a saved run file into the dashboard as a RunFeed, so the window
/// treats replayed and live data alike (finished() lists skipped lines). It owns the
/// core ReplayFeed and keeps the replay toolbar (speed, pause, scrub) in step.
class ReplayController : public RunFeed {
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

private:
    ReplayBar* m_bar;
    ReplayFeed* m_feed = nullptr;
    QString m_path;
    QTimer m_position;
};

} // namespace ks
