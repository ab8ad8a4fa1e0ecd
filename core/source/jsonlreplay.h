#pragma once

#include "metrics/aggregator.h"
#include "metrics/specdecode.h"
#include "source/runsource.h"
#include "store/requestrecord.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

#include <optional>

namespace ks {

/// Reads a run file line by line as file-level events (never the whole file
/// at once), for ReplayFeed, which turns them into a RunSource's. Speed 0 replays as fast as the consumer
/// allows, in batches; speed S > 0 releases each request when the replay's run
/// clock, which advances S times faster than real time and stops while paused,
/// reaches the request's end, so a 1x replay unfolds as the live run did.
class JsonlReplay : public QObject {
    Q_OBJECT
public:
    explicit JsonlReplay(QString path, double speed = 0, QObject* parent = nullptr);

    void start();
    void stop();
    void setPaused(bool paused);
    /// 0: as fast as possible; S > 0: S times real time. Takes effect at once.
    void setSpeed(double speed);
    double speed() const { return m_speed; }
    /// Lines read so far and the file's size in bytes read so far / total, for progress.
    qint64 bytesRead() const { return m_file.pos(); }
    qint64 bytesTotal() const { return m_file.size(); }
    QString errorString() const { return m_error; }

signals:
    /// The `experiment` line, cleaned by the reader.
    void experimentRead(const ks::ExperimentInfo& info);
    /// A `run` line (index and total are not known here: 0).
    void runStarted(const ks::RunInfo& info);
    void recordsReady(const QVector<ks::RequestRecord>& records);
    /// The run's stored summary line, as the reader returns it.
    void summaryRead(const QString& run, const nlohmann::json& summary);
    /// A `round` line (repeats that run until decided), cleaned by the reader.
    void roundRead(const nlohmann::json& line);
    /// A `search_probe` line (a search over several knobs), cleaned by the reader.
    void searchProbeRead(const nlohmann::json& line);
    /// A search's closing `search` line, cleaned by the reader.
    void searchRead(const nlohmann::json& line);
    /// A scrape of the server's metrics (-1: the server did not report it).
    void serverSampled(const QString& run, qint64 tUs, double running, double waiting, double kvCacheUsage);
    /// A scrape's speculative-decoding figures (a `server` line's `spec_decode`).
    void specDecodeSampled(const QString& run, const ks::SpecDecodeCounters& counters);
    /// A sample of the GPUs (`gpu` lines: nvidia-smi during the run).
    void gpuSampled(const QString& run, qint64 tUs, const ks::GpuGauges& gauges);
    /// A server lifecycle event or a line of server output (`server_event` records).
    void serverEventRead(const QString& run, const QString& event, const QString& detail);
    /// The live run took a snapshot here (`tick` lines, µs on the run's clock):
    /// every record and scrape of the run before it has been sent.
    void snapshotTaken(const QString& run, qint64 tUs);
    /// A line the reader could not use; it goes on.
    void issueFound(qint64 line, const QString& message);
    void finished();

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
