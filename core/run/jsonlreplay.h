#pragma once

#include "run/runsource.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

namespace ks {

/// Replays a run file through the RunSource events, reading it incrementally
/// (never the whole file at once). Speed 0 replays as fast as the consumer
/// allows, in batches; speed S > 0 releases each request at (end time) / S
/// after its run starts, so a 1x replay unfolds as the live run did.
class JsonlReplay : public RunSource {
    Q_OBJECT
public:
    explicit JsonlReplay(QString path, double speed = 0, QObject* parent = nullptr);

    void start() override;
    void stop() override;
    void setPaused(bool paused);
    /// Lines read so far and the file's size in bytes read so far / total, for progress.
    qint64 bytesRead() const { return m_file.pos(); }
    qint64 bytesTotal() const { return m_file.size(); }
    QString errorString() const { return m_error; }

private:
    void tick();
    bool handleLine(const QByteArray& line); // false: stop this tick (paced record not due yet)
    void flush();
    void finish();

    QString m_path;
    double m_speed;
    QFile m_file;
    QTimer m_timer;
    QElapsedTimer m_runClock;
    QVector<RequestRecord> m_batch;
    QByteArray m_heldLine; ///< a paced record read but not yet due
    QString m_currentRun;
    QString m_error;
    qint64 m_line = 0;
    bool m_paused = false;
    bool m_done = false;
};

} // namespace ks
