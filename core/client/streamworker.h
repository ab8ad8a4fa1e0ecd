#pragma once

#include "client/sharedloadstate.h"
#include "client/streamaccumulator.h"
#include "client/threadcpu.h"
#include "metrics/loghistogram.h"

#include <QObject>
#include <QTimer>
#include <QVector>

#include <memory>
#include <unordered_map>

namespace ks {

class HttpConnection;

struct WorkerStats {
    /// Event-loop lateness, one sample per 10 ms: bounded (64 KiB) however long the
    /// arm, since a vector of samples was the whole of a 10-minute soak's growth.
    LogHistogram loopLagMs;
    std::vector<double> connectMs; ///< warm-up request times, one per pre-opened connection
    int connectFailures = 0; ///< warm-up requests that got no response (timed out or failed)
    QString connectError; ///< why the first of them failed
    /// CPU (user + system) of this worker's thread, which does all of its streams'
    /// network work, per thread id, from start() to the end of its part of the arm,
    /// in seconds. Other threads of the process (a dashboard's drawing, the next
    /// arm's bootstrap) are never in it.
    std::vector<std::pair<ThreadId, double>> threadCpuS;
};

/// Sends and measures requests in one worker thread, one keep-alive connection
/// per concurrent stream (HttpConnection: the request is written and its stream
/// read on this thread, with no hop to another). Connections are made in
/// prepare(), not the constructor, so they live in the worker thread.
class StreamWorker : public QObject {
    Q_OBJECT
public:
    StreamWorker(std::shared_ptr<SharedLoadState> state, int index, int workerCount, int closedLoopSlots);
    ~StreamWorker() override;

public slots:
    /// Opens this worker's connections with one cheap request each, then emits prepared().
    void prepare();
    void start();
    /// Stops sending; in-flight requests are cancelled and recorded as such.
    void stop();
    /// Live control (closed loop): from now on this worker keeps `slotCount` streams
    /// open and labels the requests it sends `runLabel`. A raise sends at once;
    /// a cut lets the streams in flight finish and does not replace them.
    void steer(int slotCount, const QString& runLabel);
    /// Live control (open loop): `schedule` replaces the arrival schedule; it keeps
    /// the old one up to the command and has new arrivals after it. This worker
    /// goes on at the same position (its share of arrivals already sent stays
    /// sent) and labels the requests it sends `runLabel`.
    void steerRate(std::shared_ptr<const std::vector<qint64>> schedule, int generation, const QString& runLabel);

signals:
    void prepared();
    void recordsReady(const QVector<ks::RequestRecord>& records);
    void finished(const ks::WorkerStats& stats);

private:
    /// A multi-turn session holding one closed-loop slot from its first turn to its last.
    struct Session {
        qint64 index = 0;
        int turn = 0;
        int turns = 1;
        std::vector<QByteArray> replies; ///< the server's reply to each turn so far
    };
    struct InFlight {
        std::unique_ptr<StreamAccumulator> accumulator;
        std::shared_ptr<Session> session;
        qint64 deadlineUs = 0;
        qint64 lastActivityUs = 0; ///< the send or the last byte read, for the stall timeout
        QString abortReason;
        QString abortDetail;
        std::vector<std::pair<QByteArray, qint64>> unread; ///< bytes read, with when, not parsed yet
    };

    /// An idle connection, or a new one.
    HttpConnection* pickConnection();
    HttpConnection* newConnection();
    void onPreconnected(HttpConnection* connection, int status, const QString& error);
    void abortPreconnects();
    void launchClosedLoop();
    /// After a closed-loop request ends: the session's next turn, a new request,
    /// or, when steering cut the slots, nothing (the slot closes).
    void relaunch(std::shared_ptr<Session> session);
    /// Whether this worker has nothing more to send: the request count or the
    /// duration is used up, or the load stops.
    bool exhausted() const;
    /// Sends the session's current turn on its slot, or frees the slot when the load is done.
    void launchTurn(std::shared_ptr<Session> session);
    void scheduleNextArrival();
    void send(qint64 index, qint64 tSchedUs, std::shared_ptr<Session> session = nullptr);
    void onFinished(HttpConnection* connection, const QString& transportError);
    /// Parses what was read since the last pass, each read with its own timestamp.
    void parseReads();
    void parseUnread(InFlight& flight);
    /// Ends an exchange that the client gives up on (timeout, stall, stop) as a record.
    void endExchange(HttpConnection* connection, const QString& reason, const QString& detail);
    void sweepTimeouts();
    void flushRecords();
    void checkDone();
    qint64 nowUs() const { return monotonicUs() - m_state->t0Us; }

    std::shared_ptr<SharedLoadState> m_state;
    int m_index;
    int m_workerCount;
    int m_slots;
    QString m_runLabel; ///< the label of the requests it sends (steer() changes it)
    std::vector<HttpConnection*> m_connections; ///< children of this worker
    ThreadId m_thread = 0;
    double m_cpuAtStart = 0;
    struct Preconnect {
        qint64 startedUs = 0;
        int status = 0; ///< of the response, once its head arrived
    };
    std::unordered_map<HttpConnection*, Preconnect> m_preconnects; ///< warm-up requests still running
    std::unordered_map<HttpConnection*, InFlight> m_inFlight;
    std::vector<HttpConnection*> m_toParse; ///< connections with unread bytes
    bool m_parseQueued = false;
    QVector<RequestRecord> m_pending;
    QTimer m_flushTimer;
    QTimer m_sweepTimer;
    QTimer m_arrivalTimer;
    QTimer m_lagProbe;
    QTimer m_preconnectDeadline;
    qint64 m_lagExpectedUs = 0;
    std::shared_ptr<const std::vector<qint64>> m_schedule; ///< rate mode: the newest this worker holds
    int m_generation = 0; ///< of m_schedule (SharedLoadState::scheduleGeneration)
    std::size_t m_nextArrival = 0;
    int m_openSlots = 0;
    bool m_sending = false;
    bool m_finished = false;
    WorkerStats m_stats;
};

} // namespace ks

Q_DECLARE_METATYPE(ks::WorkerStats)
