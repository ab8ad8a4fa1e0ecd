#include "client/streamworker.h"

#include "client/httpconnection.h"

#include <QLoggingCategory>
#include <QThread>

#include <algorithm>
#include <iterator>
#include <utility>

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
// Rate mode has no slot count: this many connections are opened before t0, and
// more are opened when more requests are in flight at once.
constexpr int kRateModeConnections = 6;
} // namespace

StreamWorker::StreamWorker(std::shared_ptr<SharedLoadState> state, int index, int workerCount, int closedLoopSlots)
    : m_state(std::move(state))
    , m_index(index)
    , m_workerCount(workerCount)
    , m_slots(closedLoopSlots)
    , m_runLabel(m_state->factory.spec().runLabel)
    , m_flushTimer(this)
    , m_sweepTimer(this)
    , m_arrivalTimer(this)
    , m_lagProbe(this)
    , m_preconnectDeadline(this)
{
    // The timers are children so moveToThread() takes them along.
    // The arm's own schedule, shared with the state that owns it (no copy).
    m_schedule = std::shared_ptr<const std::vector<qint64>>(m_state, &m_state->schedule);
}

StreamWorker::~StreamWorker() = default;

HttpConnection* StreamWorker::newConnection()
{
    auto* connection = new HttpConnection(m_state->factory.url(), m_state->factory.spec().verifyTls, this);
    connection->setCallbacks({
        .written =
            [this, connection] {
                const auto it = m_inFlight.find(connection);
                if (it != m_inFlight.end())
                    it->second.accumulator->onRequestWritten(nowUs());
            },
        .head =
            [this, connection](int status) {
                if (const auto pre = m_preconnects.find(connection); pre != m_preconnects.end()) {
                    pre->second.status = status;
                    return;
                }
                const auto it = m_inFlight.find(connection);
                if (it != m_inFlight.end())
                    it->second.accumulator->onHeaders(status, nowUs());
            },
        .body =
            [this, connection](const char* data, qsizetype size) {
                const auto it = m_inFlight.find(connection);
                if (it == m_inFlight.end())
                    return; // a warm-up response: only that it came matters
                // One timestamp per read, taken as it is read. The bytes are parsed once
                // every socket that was ready has been read: in a burst (a batch's token
                // for every stream at once) the last stream read would otherwise be
                // stamped after the parsing of all the others.
                InFlight& flight = it->second;
                flight.lastActivityUs = monotonicUs();
                if (flight.unread.empty())
                    m_toParse.push_back(connection);
                flight.unread.emplace_back(QByteArray(data, size), nowUs());
                if (!m_parseQueued) {
                    m_parseQueued = true;
                    QMetaObject::invokeMethod(this, &StreamWorker::parseReads, Qt::QueuedConnection);
                }
            },
        .finished =
            [this, connection](const QString& error) {
                if (const auto pre = m_preconnects.find(connection); pre != m_preconnects.end()) {
                    onPreconnected(connection, pre->second.status, error);
                    return;
                }
                onFinished(connection, error);
            },
    });
    m_connections.push_back(connection);
    return connection;
}

HttpConnection* StreamWorker::pickConnection()
{
    for (HttpConnection* connection : m_connections) {
        if (!connection->busy())
            return connection;
    }
    return newConnection();
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
        m_stats.loopLagMs.add(double(std::max<qint64>(0, now - m_lagExpectedUs)) / 1000.0);
        m_lagExpectedUs = now + kLagProbeMs * 1000;
    });

    m_thread = currentThreadId();
    const int connections = m_slots > 0 ? m_slots : kRateModeConnections;
    for (int i = 0; i < connections; ++i)
        newConnection();
    if (!m_state->factory.spec().preconnect) {
        emit prepared();
        return;
    }
    // One GET /v1/models per connection, all at once, so each connection is open
    // before t0 and TTFT never includes a TCP (or TLS) handshake. A server that
    // accepts and never answers must not hang the arm before t0: the warm-ups have
    // a deadline, and the arm starts anyway. The arm's own requests then meet the
    // same server and record what happens to them.
    const int stallMs = int(std::min<double>(kPreconnectStallMs, m_state->factory.spec().stallTimeoutS * 1000));
    m_preconnectDeadline.setSingleShot(true);
    connect(&m_preconnectDeadline, &QTimer::timeout, this, &StreamWorker::abortPreconnects);
    const QByteArray request = m_state->factory.modelsRequest();
    for (HttpConnection* connection : m_connections) {
        m_preconnects[connection] = { monotonicUs(), 0 };
        connection->send(request);
    }
    m_preconnectDeadline.start(std::max(1, stallMs) * kPreconnectDeadlineFactor);
}

void StreamWorker::onPreconnected(HttpConnection* connection, int status, const QString& error)
{
    const auto it = m_preconnects.find(connection);
    if (it == m_preconnects.end())
        return;
    const qint64 startedUs = it->second.startedUs;
    m_preconnects.erase(it);
    if (status == 0) {
        // No HTTP response at all. Any status, even 404 from a server without
        // /v1/models, means the connection is open, which is all this was for.
        if (m_stats.connectFailures++ == 0) {
            m_stats.connectError = QStringLiteral("GET %1: %2").arg(m_state->factory.modelsUrl().path(), error);
            qCWarning(lcWorker, "pre-connect: %s; the arm starts without a warm connection",
                qPrintable(m_stats.connectError));
        }
    } else {
        m_stats.connectMs.push_back(double(monotonicUs() - startedUs) / 1000.0);
    }
    if (m_preconnects.empty()) {
        m_preconnectDeadline.stop();
        emit prepared();
    }
}

void StreamWorker::abortPreconnects()
{
    std::vector<HttpConnection*> running;
    for (const auto& [connection, pre] : m_preconnects)
        running.push_back(connection);
    for (HttpConnection* connection : running) {
        connection->abort();
        onPreconnected(connection, 0, QStringLiteral("no response in time"));
    }
}

void StreamWorker::start()
{
    m_sending = true;
    m_cpuAtStart = threadCpuSeconds(m_thread);
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
    if (!m_sending || m_state->stopping.load() || pastDeadline || m_state->draining.load()) {
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
    const std::vector<qint64>& schedule = *m_schedule;
    while (m_sending && !m_state->stopping.load() && !m_state->draining.load() && m_nextArrival < schedule.size()) {
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
    // Stopped or draining: no more arrivals. A share used up keeps its place in
    // the stride, where a steered (longer) schedule goes on.
    m_nextArrival = std::max(m_nextArrival, schedule.size());
    checkDone();
}

void StreamWorker::send(qint64 index, qint64 tSchedUs, std::shared_ptr<Session> session)
{
    const RequestFactory& factory = m_state->factory;
    const LoadSpec& spec = factory.spec();
    m_state->sent.fetch_add(1, std::memory_order_relaxed);
    RequestRecord record;
    record.run = m_runLabel;
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
        record.images = turn.images;
        record.imageBytes = turn.imageBytes;
        if (session) {
            record.session = session->index;
            record.turn = session->turn;
        }
    } else {
        body = factory.body(index);
    }

    const QByteArray request = factory.httpRequest(index, body);
    HttpConnection* connection = pickConnection();
    record.tSendUs = nowUs();
    InFlight flight;
    flight.accumulator = std::make_unique<StreamAccumulator>(spec.api, std::move(record));
    // A session's next turn carries this reply, so its text is kept until then.
    flight.accumulator->keepText(probe != nullptr || session != nullptr);
    flight.session = std::move(session);
    flight.lastActivityUs = monotonicUs();
    flight.deadlineUs = flight.lastActivityUs + qint64(std::min(spec.requestTimeoutS, 1e11) * 1e6);
    m_inFlight.emplace(connection, std::move(flight));
    connection->send(request);
}

void StreamWorker::parseReads()
{
    m_parseQueued = false;
    for (HttpConnection* connection : std::exchange(m_toParse, {})) {
        const auto it = m_inFlight.find(connection);
        if (it == m_inFlight.end())
            continue;
        parseUnread(it->second);
        // The rest of a stream whose event went over the limit cannot be read:
        // end it now (its record says why) instead of reading it to its end.
        if (it->second.accumulator->overLimit())
            endExchange(connection, ErrorReason::kEventTooLarge, {});
    }
}

void StreamWorker::parseUnread(InFlight& flight)
{
    for (const auto& [bytes, readUs] : flight.unread)
        flight.accumulator->onBytes(bytes, readUs);
    flight.unread.clear();
}

void StreamWorker::onFinished(HttpConnection* connection, const QString& transportError)
{
    const qint64 now = nowUs();
    auto it = m_inFlight.find(connection);
    if (it == m_inFlight.end())
        return;
    InFlight flight = std::move(it->second);
    m_inFlight.erase(it);
    parseUnread(flight);

    QString reason;
    QString detail;
    if (!flight.abortReason.isEmpty()) {
        reason = flight.abortReason;
        detail = flight.abortDetail;
    } else if (!transportError.isEmpty()) {
        // No response at all, or a stream cut short: the connection failed. An
        // HTTP error status says more than how its body ended, so it wins (finish()).
        reason = ErrorReason::kTransport;
        detail = transportError;
    }
    RequestRecord record = flight.accumulator->finish(now, reason, detail);
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
        relaunch(std::move(session));
    checkDone();
}

void StreamWorker::relaunch(std::shared_ptr<Session> session)
{
    if (session)
        launchTurn(std::move(session)); // a session keeps its slot to its last turn
    else if (m_openSlots > m_slots)
        --m_openSlots; // steered down: this slot closes
    else
        launchClosedLoop();
}

void StreamWorker::steer(int slotCount, const QString& runLabel)
{
    m_runLabel = runLabel;
    if (!m_state->schedule.empty())
        return; // rate arms have no slots to steer
    const int raise = slotCount - m_slots;
    m_slots = std::max(0, slotCount);
    if (m_finished || !m_sending || m_state->stopping.load())
        return;
    for (int i = 0; i < raise; ++i) {
        ++m_openSlots;
        launchClosedLoop();
    }
    checkDone();
}

void StreamWorker::steerRate(
    std::shared_ptr<const std::vector<qint64>> schedule, int generation, const QString& runLabel)
{
    m_runLabel = runLabel;
    m_schedule = std::move(schedule);
    m_generation = generation;
    if (m_finished || !m_sending || m_state->stopping.load() || m_state->draining.load())
        return;
    m_arrivalTimer.stop(); // the arrival it waits for may have moved
    scheduleNextArrival();
}

bool StreamWorker::exhausted() const
{
    const LoadSpec& spec = m_state->factory.spec();
    return !m_sending || m_state->stopping.load() || m_state->draining.load()
        || (m_state->deadlineUs > 0 && nowUs() >= m_state->deadlineUs)
        || (spec.requests > 0 && m_state->nextIndex.load() >= spec.requests);
}

void StreamWorker::endExchange(HttpConnection* connection, const QString& reason, const QString& detail)
{
    const auto it = m_inFlight.find(connection);
    if (it == m_inFlight.end())
        return;
    connection->abort();
    it->second.abortReason = reason;
    it->second.abortDetail = detail;
    onFinished(connection, {});
}

void StreamWorker::sweepTimeouts()
{
    if (m_state->draining.load() && !m_state->schedule.empty() && m_nextArrival < m_schedule->size()) {
        m_arrivalTimer.stop(); // a rate arm draining: no more arrivals
        m_nextArrival = m_schedule->size();
    }
    if ((m_state->steered.load() && m_openSlots <= 0) || m_state->draining.load())
        checkDone(); // an idle steered or draining worker ends with the load's bound
    const qint64 now = monotonicUs();
    const qint64 stallUs = m_state->factory.stallTimeoutUs();
    std::vector<std::pair<HttpConnection*, QString>> expired;
    for (auto& [connection, flight] : m_inFlight) {
        if (now >= flight.deadlineUs)
            expired.push_back({ connection, ErrorReason::kTimeout });
        else if (now - flight.lastActivityUs >= stallUs)
            expired.push_back({ connection, ErrorReason::kStalled });
    }
    for (const auto& [connection, reason] : expired) {
        const QString detail = reason == ErrorReason::kStalled
            ? QStringLiteral("no bytes for %1 s").arg(m_state->factory.spec().stallTimeoutS)
            : QString();
        endExchange(connection, reason, detail);
    }
}

void StreamWorker::stop()
{
    m_sending = false;
    m_arrivalTimer.stop();
    std::vector<HttpConnection*> running;
    for (const auto& [connection, flight] : m_inFlight)
        running.push_back(connection);
    for (HttpConnection* connection : running)
        endExchange(connection, ErrorReason::kCancelled, {});
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
    // A steered worker with no slot left idles until a raise or the load's end.
    // A rate arm's worker whose share is used up waits for a steered schedule
    // already on its way (one that extends its share), unless the load ends.
    const bool noMoreSends = closedLoop ? m_openSlots <= 0 && (!m_state->steered.load() || exhausted())
                                        : !m_sending
            || (m_nextArrival >= m_schedule->size()
                && (m_generation == m_state->scheduleGeneration.load() || m_state->stopping.load()
                    || m_state->draining.load()));
    if (m_finished || !noMoreSends || !m_inFlight.empty())
        return;
    m_finished = true;
    m_flushTimer.stop();
    m_sweepTimer.stop();
    m_lagProbe.stop();
    if (m_thread > 0)
        m_stats.threadCpuS = { { m_thread, threadCpuSeconds(m_thread) - m_cpuAtStart } };
    flushRecords();
    emit finished(m_stats);
}

} // namespace ks
