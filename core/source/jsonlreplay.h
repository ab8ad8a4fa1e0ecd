#pragma once

#include "source/runsource.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

#include <optional>

namespace ks {

/// Replays a run file through the RunSource events, reading it incrementally
/// (never the whole file at once). Speed 0 replays as fast as the consumer
/// allows, in batches; speed S > 0 releases each request when the replay's run
/// clock, which advances S times faster than real time and stops while paused,
/// reaches the request's end, so a 1x replay unfolds as the live run did.
class JsonlReplay : public RunSource {
    Q_OBJECT
public:
    explicit JsonlReplay(QString path, double speed = 0, QObject* parent = nullptr);

    void start() override;
    void stop() override;
    void setPaused(bool paused);
    /// 0: as fast as possible; S > 0: S times real time. Takes effect at once.
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    /// Lines read so far and the file's size in bytes read so far / total, for progress.
    qint64 bytesRead() const { return m_file.pos(); }
    qint64 bytesTotal() const { return m_file.size(); }
    QString errorString() const { return m_error; }

private:
    void tick();
    void handleLine(const QByteArray& line);
    bool isDue(qint64 runTimeUs) const; ///< false: paced and not due yet (the caller holds the line)
    void releaseTick(const QString& run, qint64 tUs);
    void flush();
    void finish();

    QString m_path;
    double m_speed;
    QFile m_file;
    QTimer m_timer;
    QElapsedTimer m_wall; ///< advances m_runTimeMs while playing
    double m_runTimeMs = 0; ///< how far into the current run the replay is (paced speeds)
    QVector<RequestRecord> m_batch;
    std::optional<RequestRecord> m_held; ///< a paced record read but not yet due
    std::optional<std::pair<QString, qint64>> m_heldTick; ///< or a paced tick (run, t_us)
    QString m_currentRun;
    QString m_error;
    qint64 m_line = 0;
    bool m_paused = false;
    bool m_done = false;
};

} // namespace ks
