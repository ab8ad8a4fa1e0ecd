#include "load/loadrunner.h"

#include "load/arrivalschedule.h"
#include "metrics/percentiles.h"

#include <QMetaObject>

#include <algorithm>
#include <cmath>
#include <sys/resource.h>

namespace ks {

double processCpuSeconds()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

ClientLoad clientLoadOf(const LoadResult& result)
{
    ClientLoad load;
    load.loopLagP99Ms = result.stats.loopLagMs.percentile(99);
    load.cores = result.cores;
    load.cpuUtilisation = result.wallS > 0 ? result.cpuS / (result.wallS * result.cores) : 0;
    load.connectFailures = result.stats.connectFailures;
    load.connectError = result.stats.connectError;
    load.loadAverage = result.loadAverage;
    return load;
}

namespace {
// Requests per second an open-loop arm plans: its rate, or the trace's mean over the window.
double offeredRate(const LoadSpec& spec)
{
    if (spec.mode != LoadSpec::Mode::Trace || !spec.trace || !spec.trace->index)
        return spec.rate;
    const std::vector<TraceEntry>& entries = spec.trace->index->entries;
    const double spanS = entries.empty() ? 0 : double(entries.back().offsetUs) / 1e6 / spec.trace->speed;
    return spanS > 0 ? double(entries.size()) / spanS : double(entries.size());
}
} // namespace

int chooseWorkerThreads(const LoadSpec& spec)
{
    if (spec.workerThreads > 0)
        return spec.workerThreads;
    const int cores = std::max(1, QThread::idealThreadCount());
    const int wanted = spec.mode == LoadSpec::Mode::Concurrency ? int(std::ceil(spec.concurrency / 64.0))
                                                                : int(std::ceil(offeredRate(spec) / 100.0));
    return std::clamp(wanted, 1, cores);
}

LoadRunner::LoadRunner(LoadSpec spec, QObject* parent)
    : QObject(parent)
    , m_spec(std::move(spec))
{
    qRegisterMetaType<RequestRecord>();
    qRegisterMetaType<QVector<RequestRecord>>();
    qRegisterMetaType<WorkerStats>();
}

LoadRunner::~LoadRunner()
{
    shutDownThreads();
}

QString LoadRunner::start()
{
    if (const QString error = m_spec.validate(); !error.isEmpty())
        return error;
    const QByteArray apiKey
        = m_spec.apiKeyEnv.isEmpty() ? QByteArray() : qgetenv(m_spec.apiKeyEnv.toLocal8Bit().constData());
    m_state = std::make_shared<SharedLoadState>(RequestFactory(m_spec, apiKey));
    if (m_spec.mode == LoadSpec::Mode::Rate)
        m_state->schedule
            = gammaArrivals(m_spec.rate, m_spec.burstiness, m_spec.requests, m_spec.durationS, m_spec.seed);
    else if (m_spec.mode == LoadSpec::Mode::Trace)
        m_state->schedule = m_spec.trace->schedule(m_spec.requests, m_spec.durationS);

    m_schedule = std::shared_ptr<const std::vector<qint64>>(m_state, &m_state->schedule);
    const int workers = chooseWorkerThreads(m_spec);
    m_result.workerThreads = workers;
    m_result.cores = std::max(1, QThread::idealThreadCount());
    m_progress.expected = m_spec.mode == LoadSpec::Mode::Concurrency ? m_spec.requests : int(m_state->schedule.size());
    m_progress.durationS = m_spec.durationS;
    for (int i = 0; i < workers; ++i) {
        const int slotCount = m_spec.mode == LoadSpec::Mode::Concurrency
            ? m_spec.concurrency / workers + (i < m_spec.concurrency % workers ? 1 : 0)
            : 0;
        auto* thread = new QThread(this);
        thread->setObjectName(QStringLiteral("ks-worker-%1").arg(i));
        auto* worker = new StreamWorker(m_state, i, workers, slotCount);
        worker->moveToThread(thread);
        connect(thread, &QThread::finished, worker, &QObject::deleteLater);
        connect(worker, &StreamWorker::prepared, this, &LoadRunner::onPrepared, Qt::QueuedConnection);
        connect(worker, &StreamWorker::recordsReady, this, &LoadRunner::onRecords, Qt::QueuedConnection);
        connect(worker, &StreamWorker::finished, this, &LoadRunner::onWorkerFinished, Qt::QueuedConnection);
        m_threads.push_back(thread);
        m_workers.push_back(worker);
        thread->start();
        QMetaObject::invokeMethod(worker, &StreamWorker::prepare, Qt::QueuedConnection);
    }
    return {};
}

void LoadRunner::onPrepared()
{
    if (++m_prepared < int(m_workers.size()))
        return;
    m_state->t0Us = monotonicUs();
    m_state->deadlineUs = m_spec.durationS > 0 ? qint64(m_spec.durationS * 1e6) : 0;
    m_result.t0Us = m_state->t0Us;
    m_cpuAtStart = processCpuSeconds();
    emit started(m_state->t0Us);
    for (StreamWorker* worker : m_workers)
        QMetaObject::invokeMethod(worker, &StreamWorker::start, Qt::QueuedConnection);
}

void LoadRunner::stop()
{
    if (!m_state)
        return;
    m_state->stopping = true;
    m_result.stopped = true;
    for (StreamWorker* worker : m_workers)
        QMetaObject::invokeMethod(worker, &StreamWorker::stop, Qt::QueuedConnection);
}

void LoadRunner::drain()
{
    if (m_state)
        m_state->draining = true; // each worker sees it at its next send and its next timeout sweep
}

QString LoadRunner::steer(int concurrency, const QString& runLabel)
{
    if (m_spec.mode != LoadSpec::Mode::Concurrency)
        return tr("only a concurrency arm can be steered (this one sends at a rate)");
    if (concurrency < 1 || concurrency > kMaxSteeredConcurrency)
        return tr("concurrency must be 1 to %1").arg(kMaxSteeredConcurrency);
    if (!m_state || m_state->stopping.load() || m_finished == int(m_workers.size()))
        return tr("the arm is not running");
    m_state->steered = true;
    const int workers = int(m_workers.size());
    for (int i = 0; i < workers; ++i) {
        const int slotCount = concurrency / workers + (i < concurrency % workers ? 1 : 0);
        QMetaObject::invokeMethod(
            m_workers[std::size_t(i)],
            [worker = m_workers[std::size_t(i)], slotCount, runLabel] { worker->steer(slotCount, runLabel); },
            Qt::QueuedConnection);
    }
    return {};
}

QString LoadRunner::steerRate(double rate, const QString& runLabel)
{
    if (m_spec.mode != LoadSpec::Mode::Rate)
        return tr("only a rate arm takes a rate (this one keeps a number of streams open: steer its concurrency)");
    if (!(rate > 0) || !std::isfinite(rate))
        return tr("the rate must be a number of requests per second above 0");
    if (!m_state || m_state->stopping.load() || m_state->draining.load() || m_finished == int(m_workers.size())
        || m_prepared < int(m_workers.size()))
        return tr("the arm is not running");
    // From here no worker finishes on a used-up share until it holds the new
    // schedule (StreamWorker::checkDone). One that finished before had all of
    // its share sent, so before the cut: the check below rules that out.
    m_state->steered = true;
    const int generation = m_state->scheduleGeneration.fetch_add(1) + 1;
    const qint64 cutUs = monotonicUs() - m_state->t0Us;
    const std::vector<qint64>& times = *m_schedule;
    const auto kept = std::size_t(std::lower_bound(times.begin(), times.end(), cutUs) - times.begin());
    const auto workers = m_workers.size();
    auto refuse = [this](const QString& why) {
        m_state->scheduleGeneration.fetch_sub(1); // a worker waiting on it may finish at its next sweep
        return why;
    };
    if (times.size() - kept < workers)
        return refuse(tr("the arm has sent all but its last arrivals"));
    auto next = std::make_shared<std::vector<qint64>>(times.begin(), times.begin() + std::ptrdiff_t(kept));
    const int remaining = m_spec.requests > 0 ? m_spec.requests - int(kept) : 0;
    // A seed per setting, so the same command on the same arm gives the same arrivals.
    const quint64 seed = m_spec.seed ^ (0x9e3779b97f4a7c15ULL * quint64(generation));
    if (!appendGammaArrivals(
            *next, cutUs, rate, m_spec.burstiness, remaining, m_state->deadlineUs, seed, kMaxSteeredArrivals))
        return refuse(
            tr("%1 req/s would plan more than %2 arrivals for the rest of the arm").arg(rate).arg(kMaxSteeredArrivals));
    m_schedule = next;
    m_progress.expected = int(next->size());
    for (StreamWorker* worker : m_workers)
        QMetaObject::invokeMethod(
            worker, [worker, next, generation, runLabel] { worker->steerRate(next, generation, runLabel); },
            Qt::QueuedConnection);
    return {};
}

void LoadRunner::onRecords(const QVector<RequestRecord>& records)
{
    for (const RequestRecord& r : records) {
        ++m_progress.done;
        r.ok ? ++m_progress.ok : ++m_progress.errors;
    }
    m_progress.elapsedS = double(monotonicUs() - m_state->t0Us) / 1e6;
    m_progress.inFlight = std::max(0, m_state->sent.load(std::memory_order_relaxed) - m_progress.done);
    emit recordsReady(records);
    emit progressed(m_progress);
}

void LoadRunner::onWorkerFinished(const WorkerStats& stats)
{
    auto append = [](std::vector<double>& to, const std::vector<double>& from) {
        to.insert(to.end(), from.begin(), from.end());
    };
    m_result.stats.loopLagMs.merge(stats.loopLagMs);
    append(m_result.stats.connectMs, stats.connectMs);
    if (m_result.stats.connectError.isEmpty())
        m_result.stats.connectError = stats.connectError;
    m_result.stats.connectFailures += stats.connectFailures;
    for (const auto& [tid, seconds] : stats.threadCpuS)
        m_threadCpuS[tid] = std::max(m_threadCpuS[tid], seconds); // one thread, seen by two workers
    if (++m_finished < int(m_workers.size()))
        return;
    m_result.wallS = double(monotonicUs() - m_state->t0Us) / 1e6;
    m_result.processCpuS = processCpuSeconds() - m_cpuAtStart;
    if (double avg[1]; getloadavg(avg, 1) == 1)
        m_result.loadAverage = avg[0];
    // Where threads cannot be measured one by one, the process's figure is all there is.
    m_result.cpuThreads = int(m_threadCpuS.size());
    double loadCpuS = 0;
    for (const auto& [tid, seconds] : m_threadCpuS)
        loadCpuS += seconds;
    m_result.cpuS = m_result.cpuThreads > 0 ? loadCpuS : m_result.processCpuS;
    shutDownThreads();
    emit finished(m_result);
}

void LoadRunner::shutDownThreads()
{
    for (QThread* thread : m_threads) {
        thread->quit();
        thread->wait();
    }
    m_threads.clear();
    m_workers.clear();
}

} // namespace ks
