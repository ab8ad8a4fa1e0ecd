#pragma once

#include "client/streamworker.h"
#include "metrics/runsummary.h"
#include "workload/loadspec.h"

#include <QObject>
#include <QThread>
#include <QVector>

#include <map>
#include <memory>
#include <vector>

namespace ks {

struct LoadProgress {
    int done = 0;
    int ok = 0;
    int errors = 0;
    int expected = 0; ///< 0 when bounded by duration only
    int inFlight = 0; ///< sent and not yet finished, as of the latest records
    double elapsedS = 0;
    double durationS = 0;
};

struct LoadResult {
    qint64 t0Us = 0; ///< the arm's start on the monotonic clock
    double wallS = 0;
    /// CPU (user + system) of the load's own threads during the arm: the worker
    /// threads, which do all of the streams' network work; not the rest of the process.
    double cpuS = 0;
    double processCpuS = 0; ///< the whole process's CPU during the arm, for comparison
    int cpuThreads = 0; ///< threads measured in cpuS
    int workerThreads = 0;
    int cores = 1;
    bool stopped = false;
    double loadAverage = -1; ///< the machine's 1-minute load average at the end, -1 unknown
    WorkerStats stats; ///< merged over workers (connect failures summed, the first error kept)
};

/// The most streams a steered arm may be raised to (as many as the client
/// keeps open in the scale-out tests; past that, shard: docs/distributed.md).
inline constexpr int kMaxSteeredConcurrency = 4096;
/// The most arrivals a steered rate may plan for the rest of an arm (8 bytes
/// each, shared by the workers).
inline constexpr std::size_t kMaxSteeredArrivals = 20'000'000;

/// Runs one arm: starts the worker threads, pre-opens connections, starts the
/// clock, relays batched records, and reports the client's own load so a run
/// can say when the client limited the measurement.
class LoadRunner : public QObject {
    Q_OBJECT
public:
    explicit LoadRunner(LoadSpec spec, QObject* parent = nullptr);
    ~LoadRunner() override;

    /// Returns an error message instead of starting when the spec is invalid.
    QString start();
    void stop();
    /// Live control of a concurrency arm: from now on `concurrency` streams,
    /// their requests labelled `runLabel` (a segment of the arm). Raises send
    /// at once; cuts let the streams in flight finish. An error instead when
    /// the arm is not a running concurrency arm.
    QString steer(int concurrency, const QString& runLabel);
    /// Live control of a rate arm: from now on arrivals at `rate` per second (the
    /// arm's burstiness, the first one gap after now), labelled `runLabel`. Arrivals
    /// due before now are sent as planned; the arm's request count and duration
    /// still bound the whole arm. An error instead when the arm is not a running
    /// rate arm, has all but its last arrivals sent, or the rate would need more
    /// than kMaxSteeredArrivals arrivals.
    QString steerRate(double rate, const QString& runLabel);
    /// Sends no more requests; the ones in flight finish (stop() cancels them).
    void drain();
    const LoadSpec& spec() const { return m_spec; }

signals:
    void started(qint64 t0Us);
    void recordsReady(const QVector<ks::RequestRecord>& records);
    void progressed(const ks::LoadProgress& progress);
    void finished(const ks::LoadResult& result);

private:
    void onPrepared();
    void onRecords(const QVector<RequestRecord>& records);
    void onWorkerFinished(const WorkerStats& stats);
    void shutDownThreads();

    LoadSpec m_spec;
    std::shared_ptr<SharedLoadState> m_state;
    std::shared_ptr<const std::vector<qint64>> m_schedule; ///< rate mode: the newest arrival schedule
    std::vector<QThread*> m_threads;
    std::vector<StreamWorker*> m_workers;
    int m_prepared = 0;
    int m_finished = 0;
    LoadProgress m_progress;
    LoadResult m_result;
    double m_cpuAtStart = 0;
    std::map<ThreadId, double> m_threadCpuS;
};

/// Worker threads for a load: enough that no thread carries more than about 64
/// streams or 100 req/s, at most one per core.
int chooseWorkerThreads(const LoadSpec& spec);
double processCpuSeconds();
/// The client-saturation inputs of a finished arm (event-loop lag p99, the load
/// threads' CPU share).
ClientLoad clientLoadOf(const LoadResult& result);

} // namespace ks

Q_DECLARE_METATYPE(ks::LoadProgress)
Q_DECLARE_METATYPE(ks::LoadResult)
