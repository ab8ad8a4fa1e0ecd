#include "client/streamworker.h"

#include "client/connectionlimits.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QThread>

#include <algorithm>
#include <chrono>
#include <iterator>

Q_LOGGING_CATEGORY(lcWorker, "ks.core.client")

namespace ks {

namespace {
constexpr int kFlushIntervalMs = 100;
constexpr int kLagProbeMs = 10;
// The arrival timer has millisecond granularity: it wakes a little early and the
// last stretch is waited out precisely.
constexpr qint64 kSpinUs = 1500;
// A warm-up GET /v1/models that gets no byte for this long (or the stall timeout,
// if shorter) is given up; the hard deadline also covers a server that trickles.
constexpr int kPreconnectStallMs = 10000;
constexpr int kPreconnectDeadlineFactor = 3;
} // namespace

qint64 monotonicUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

StreamWorker::StreamWorker(std::shared_ptr<SharedLoadState> state, int index, int workerCount, int closedLoopSlots)
    : m_state(std::move(state))
    , m_index(index)
    , m_workerCount(workerCount)
    , m_slots(closedLoopSlots)
    , m_flushTimer(this)
    , m_sweepTimer(this)
    , m_arrivalTimer(this)
    , m_lagProbe(this)
    , m_preconnectDeadline(this)
{
    // The timers are children so moveToThread() takes them along.
}

StreamWorker::~StreamWorker() = default;

QNetworkAccessManager* StreamWorker::pickManager()
{
    for (QNetworkAccessManager* nam : m_managers) {
        if (m_active.value(nam) < kStreamsPerManager)
            return nam;
    }
    auto* nam = new QNetworkAccessManager(this);
    nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    if (!m_state->factory.spec().verifyTls)
        connect(nam, &QNetworkAccessManager::sslErrors, this,
            [](QNetworkReply* r, const QList<QSslError>&) { r->ignoreSslErrors(); });
    m_managers.push_back(nam);
    m_managersWithoutThread.push_back(nam);
    return nam;
}

std::vector<ThreadId> StreamWorker::threadsBeforeFirstUse(QNetworkAccessManager* nam) const
{
    const auto& pending = m_managersWithoutThread;
    if (std::find(pending.begin(), pending.end(), nam) == pending.end())
        return {};
    return processThreadIds();
}

void StreamWorker::noteNewThreads(QNetworkAccessManager* nam, QNetworkReply* reply, const std::vector<ThreadId>& before)
{
    if (before.empty())
        return;
    // Qt starts a QNAM's HTTP thread when its first request starts: at once for a GET,
    // from a queued call for a POST. Delivering that call here makes the new thread
    // appear inside this short window, so it is attributed to the load by its id and
    // not by a name that every QNAM's thread shares (the metrics scraper's too).
    QCoreApplication::sendPostedEvents(reply, QEvent::MetaCall);
    std::vector<ThreadId> fresh;
    const std::vector<ThreadId> after = processThreadIds();
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(fresh));
    for (ThreadId tid : fresh) {
        if (std::find(m_threads.begin(), m_threads.end(), tid) == m_threads.end())
            m_threads.push_back(tid);
    }
    if (!fresh.empty())
        std::erase(m_managersWithoutThread, nam);
}

std::vector<std::pair<ThreadId, double>> StreamWorker::loadThreadCpu() const
{
    std::vector<std::pair<ThreadId, double>> out;
    for (ThreadId tid : m_threads) {
        const double now = threadCpuSeconds(tid);
        if (now < 0)
            continue;
        const auto it = m_cpuAtStart.find(tid);
        out.emplace_back(tid, now - (it == m_cpuAtStart.end() ? 0.0 : it->second));
    }
    return out;
}

void StreamWorker::prepare()
{
    m_flushTimer.setInterval(kFlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &StreamWorker::flushRecords);
    m_sweepTimer.setInterval(100);
    connect(&m_sweepTimer, &QTimer::timeout, this, &StreamWorker::sweepTimeouts);
    m_arrivalTimer.setSingleShot(true);
    m_arrivalTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_arrivalTimer, &QTimer::timeout, this, &StreamWorker::scheduleNextArrival);
    m_lagProbe.setTimerType(Qt::PreciseTimer);
    m_lagProbe.setInterval(kLagProbeMs);
    connect(&m_lagProbe, &QTimer::timeout, this, [this] {
        const qint64 now = monotonicUs();
        m_stats.loopLagMs.push_back(double(std::max<qint64>(0, now - m_lagExpectedUs)) / 1000.0);
        m_lagExpectedUs = now + kLagProbeMs * 1000;
    });

    if (const ThreadId self = currentThreadId(); self > 0)
        m_threads.push_back(self);
    const int connections = m_slots > 0 ? m_slots : kStreamsPerManager;
    if (!m_state->factory.spec().preconnect) {
        emit prepared();
        return;
    }
    // One GET /v1/models per connection slot, all at once, so each QNAM opens its
    // connections now and TTFT never includes a TCP (or TLS) handshake. A server that
    // accepts and never answers must not hang the arm before t0: each warm-up has a
    // stall timeout and all of them a deadline, and the arm starts anyway. The arm's
    // own requests then meet the same server and record what happens to them.
    const int stallMs = int(std::min<double>(kPreconnectStallMs, m_state->factory.spec().stallTimeoutS * 1000));
    m_preconnectDeadline.setSingleShot(true);
    connect(&m_preconnectDeadline, &QTimer::timeout, this, &StreamWorker::abortPreconnects);
    const QUrl url = m_state->factory.modelsUrl();
    for (int i = 0; i < connections; ++i) {
        QNetworkAccessManager* nam = pickManager();
        ++m_active[nam];
        QNetworkRequest request(url);
        request.setRawHeader("User-Agent", RequestFactory::userAgent());
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        request.setTransferTimeout(std::max(1, stallMs));
        applyConnectionLimit(request);
        const std::vector<ThreadId> before = threadsBeforeFirstUse(nam);
        const qint64 started = monotonicUs();
        QNetworkReply* reply = nam->get(request);
        m_preconnects.push_back(reply);
        connect(reply, &QNetworkReply::finished, this,
            [this, reply, nam, started] { onPreconnected(reply, nam, started); });
        noteNewThreads(nam, reply, before);
    }
    if (!m_preconnects.empty())
        m_preconnectDeadline.start(std::max(1, stallMs) * kPreconnectDeadlineFactor);
}

void StreamWorker::onPreconnected(QNetworkReply* reply, QNetworkAccessManager* nam, qint64 startedUs)
{
    const auto it = std::find(m_preconnects.begin(), m_preconnects.end(), reply);
    if (it == m_preconnects.end())
        return;
    m_preconnects.erase(it);
    --m_active[nam];
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 0) {
        // No HTTP response at all. Any status, even 404 from a server without
        // /v1/models, means the connection is open, which is all this was for.
        if (m_stats.connectFailures++ == 0) {
            m_stats.connectError = reply->error() == QNetworkReply::OperationCanceledError
                ? QStringLiteral("GET %1: no response in time").arg(reply->url().path())
                : QStringLiteral("GET %1: %2").arg(reply->url().path(), reply->errorString());
            qCWarning(lcWorker, "pre-connect: %s; the arm starts without a warm connection",
                qPrintable(m_stats.connectError));
        }
    } else {
        m_stats.connectMs.push_back(double(monotonicUs() - startedUs) / 1000.0);
    }
    reply->deleteLater();
    if (m_preconnects.empty()) {
        m_preconnectDeadline.stop();
        emit prepared();
    }
}

void StreamWorker::abortPreconnects()
{
    // abort() finishes a reply synchronously, which edits the list.
    const std::vector<QNetworkReply*> running = m_preconnects;
    for (QNetworkReply* reply : running)
        reply->abort();
}

void StreamWorker::start()
{
    m_sending = true;
    for (ThreadId tid : m_threads)
        m_cpuAtStart[tid] = threadCpuSeconds(tid);
    m_flushTimer.start();
    m_sweepTimer.start();
    m_lagExpectedUs = monotonicUs() + kLagProbeMs * 1000;
    m_lagProbe.start();
    if (m_state->schedule.empty()) {
        m_openSlots = m_slots;
        for (int i = 0; i < m_slots; ++i)
            launchClosedLoop();
    } else {
        m_nextArrival = std::size_t(m_index);
        scheduleNextArrival();
    }
    checkDone();
}

void StreamWorker::launchClosedLoop()
{
    const Workload* workload = m_state->factory.workload();
    if (workload && m_state->factory.spec().prompts.multiTurn()) {
        auto session = std::make_shared<Session>();
        session->index = m_state->nextSession.fetch_add(1);
        session->turns = workload->turnsOf(session->index);
        launchTurn(std::move(session));
        return;
    }
    launchTurn(nullptr);
}

void StreamWorker::launchTurn(std::shared_ptr<Session> session)
{
    const LoadSpec& spec = m_state->factory.spec();
    const bool pastDeadline = m_state->deadlineUs > 0 && nowUs() >= m_state->deadlineUs;
    if (!m_sending || m_state->stopping.load() || pastDeadline) {
        --m_openSlots;
        return;
    }
    const qint64 index = m_state->nextIndex.fetch_add(1);
    if (spec.requests > 0 && index >= spec.requests) {
        --m_openSlots;
        return;
    }
    send(index, nowUs(), std::move(session));
}

void StreamWorker::scheduleNextArrival()
{
    const auto& schedule = m_state->schedule;
    while (m_sending && !m_state->stopping.load() && m_nextArrival < schedule.size()) {
        const qint64 due = schedule[m_nextArrival];
        qint64 wait = due - nowUs();
        if (wait > kSpinUs) {
            m_arrivalTimer.start(int((wait - kSpinUs) / 1000));
            return;
        }
        while (wait > 0) {
            QThread::yieldCurrentThread();
            wait = due - nowUs();
        }
        send(qint64(m_nextArrival), due);
        m_nextArrival += std::size_t(m_workerCount);
    }
    m_nextArrival = schedule.size();
    checkDone();
}

void StreamWorker::send(qint64 index, qint64 tSchedUs, std::shared_ptr<Session> session)
{
    const RequestFactory& factory = m_state->factory;
    const LoadSpec& spec = factory.spec();
    m_state->sent.fetch_add(1, std::memory_order_relaxed);
    RequestRecord record;
    record.run = spec.runLabel;
    record.id = index;
    record.tSchedUs = tSchedUs;
    record.inTokens = spec.inputTokens;
    record.warmup = index < spec.warmupRequests;
    const Probe* probe = factory.probeOf(index);
    if (probe) {
        record.probe = probe->id;
        record.probeRepeat = factory.probeRepeatOf(index);
        record.inTokens = 0; // unknown: the server tokenizes the probe
    }
    QByteArray body;
    if (const Workload* workload = factory.workload()) {
        static const std::vector<QByteArray> kNoReplies;
        const PromptTurn turn = session ? workload->turn(session->index, session->turn, session->replies)
                                        : workload->turn(index, 0, kNoReplies);
        body = factory.body(turn);
        record.inTokens = turn.inTokens;
        record.prefix = turn.prefix;
        if (session) {
            record.session = session->index;
            record.turn = session->turn;
        }
    } else {
        body = factory.body(index);
    }

    QNetworkAccessManager* nam = pickManager();
    ++m_active[nam];
    const QNetworkRequest request = factory.networkRequest(index);
    const std::vector<ThreadId> before = threadsBeforeFirstUse(nam);
    record.tSendUs = nowUs();
    QNetworkReply* reply = nam->post(request, body);
    InFlight flight;
    flight.accumulator = std::make_unique<StreamAccumulator>(spec.api, std::move(record));
    // A session's next turn carries this reply, so its text is kept until then.
    flight.accumulator->keepText(probe != nullptr || session != nullptr);
    flight.session = std::move(session);
    flight.nam = nam;
    flight.deadlineUs = monotonicUs() + qint64(spec.requestTimeoutS * 1e6);
    m_inFlight.emplace(reply, std::move(flight));
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply] {
        const auto it = m_inFlight.find(reply);
        if (it != m_inFlight.end())
            it->second.accumulator->onStatus(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt());
    });
    connect(reply, &QNetworkReply::requestSent, this, [this, reply] {
        std::erase(m_awaitingUpload, reply);
        const auto it = m_inFlight.find(reply);
        if (it != m_inFlight.end())
            it->second.accumulator->onRequestWritten(nowUs());
    });
    connect(reply, &QNetworkReply::readyRead, this, [this, reply] { onReadyRead(reply); });
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onFinished(reply); });
    noteNewThreads(nam, reply, before);
    // Qt starts a POST from a call queued on the reply, behind every read already
    // queued on this thread (a burst of 128 streams' tokens): deliver it now.
    m_awaitingUpload.push_back(reply);
    QCoreApplication::sendPostedEvents(reply, QEvent::MetaCall);
}

void StreamWorker::serveUploads()
{
    // A POST body does not go to QNAM's HTTP thread with the request: that thread
    // asks this one for it (wantData) and waits for the answer (haveUploadData),
    // both queued calls. Under a burst this thread's queue holds hundreds of reads,
    // and the request would wait behind all of them before reaching the wire.
    // So before each read, answer the requests that are waiting for their body.
    // A reply with nothing posted costs one check.
    if (m_awaitingUpload.empty() || m_servingUploads)
        return;
    m_servingUploads = true;
    const std::vector<QNetworkReply*> waiting = m_awaitingUpload; // the handlers edit the list
    for (QNetworkReply* reply : waiting)
        QCoreApplication::sendPostedEvents(reply, QEvent::MetaCall);
    m_servingUploads = false;
}

void StreamWorker::onReadyRead(QNetworkReply* reply)
{
    const qint64 now = nowUs(); // one timestamp per read, taken before any parsing
    serveUploads();
    const auto it = m_inFlight.find(reply);
    if (it == m_inFlight.end())
        return;
    const QByteArray bytes = reply->readAll();
    it->second.accumulator->onBytes(bytes, now);
}

void StreamWorker::onFinished(QNetworkReply* reply)
{
    const qint64 now = nowUs();
    serveUploads();
    auto it = m_inFlight.find(reply);
    if (it == m_inFlight.end())
        return;
    InFlight flight = std::move(it->second);
    m_inFlight.erase(it);
    std::erase(m_awaitingUpload, reply);
    if (reply->bytesAvailable() > 0)
        flight.accumulator->onBytes(reply->readAll(), now);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    flight.accumulator->onStatus(status);

    QString reason;
    QString detail;
    const QNetworkReply::NetworkError error = reply->error();
    if (!flight.abortReason.isEmpty()) {
        reason = flight.abortReason;
    } else if (error == QNetworkReply::OperationCanceledError) {
        // setTransferTimeout() reports a stalled transfer as a cancel.
        reason = ErrorReason::kStalled;
        detail = QStringLiteral("no bytes for %1 s").arg(m_state->factory.spec().stallTimeoutS);
    } else if (const bool httpError = status != 0 && (status < 200 || status >= 300);
               error != QNetworkReply::NoError && !httpError) {
        // No response at all, or a 2xx stream cut short: the connection failed.
        reason = ErrorReason::kTransport;
        detail = reply->errorString();
    }
    RequestRecord record = flight.accumulator->finish(now, reason, detail);
    --m_active[flight.nam];
    reply->deleteLater();
    std::shared_ptr<Session> session = std::move(flight.session);
    if (session) {
        // A failed turn ends its session: there is no reply to carry into the next one.
        if (record.ok && session->turn + 1 < session->turns) {
            session->replies.push_back(std::move(record.outputText));
            ++session->turn;
        } else {
            session.reset();
        }
        record.outputText.clear();
        record.reasoningText.clear();
    }
    m_pending.push_back(std::move(record));

    if (m_state->schedule.empty() && m_sending)
        session ? launchTurn(std::move(session)) : launchClosedLoop();
    checkDone();
}

void StreamWorker::sweepTimeouts()
{
    const qint64 now = monotonicUs();
    std::vector<QNetworkReply*> expired;
    for (auto& [reply, flight] : m_inFlight) {
        if (now >= flight.deadlineUs && flight.abortReason.isEmpty()) {
            flight.abortReason = ErrorReason::kTimeout;
            expired.push_back(reply);
        }
    }
    for (QNetworkReply* reply : expired)
        reply->abort();
}

void StreamWorker::stop()
{
    m_sending = false;
    m_arrivalTimer.stop();
    std::vector<QNetworkReply*> running;
    for (auto& [reply, flight] : m_inFlight) {
        flight.abortReason = ErrorReason::kCancelled;
        running.push_back(reply);
    }
    for (QNetworkReply* reply : running)
        reply->abort();
    m_openSlots = 0;
    checkDone();
}

void StreamWorker::flushRecords()
{
    if (m_pending.isEmpty())
        return;
    emit recordsReady(m_pending);
    m_pending.clear();
}

void StreamWorker::checkDone()
{
    const bool closedLoop = m_state->schedule.empty();
    const bool noMoreSends = closedLoop ? m_openSlots <= 0 : (m_nextArrival >= m_state->schedule.size() || !m_sending);
    if (m_finished || !noMoreSends || !m_inFlight.empty())
        return;
    m_finished = true;
    m_flushTimer.stop();
    m_sweepTimer.stop();
    m_lagProbe.stop();
    m_stats.threadCpuS = loadThreadCpu();
    flushRecords();
    emit finished(m_stats);
}

} // namespace ks
