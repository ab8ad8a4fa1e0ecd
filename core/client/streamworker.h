#pragma once

#include "client/sharedloadstate.h"
#include "client/streamaccumulator.h"
#include "client/threadcpu.h"

#include <QHash>
#include <QObject>
#include <QTimer>
#include <QVector>

#include <memory>
#include <unordered_map>

class QNetworkAccessManager;
class QNetworkReply;

namespace ks {

struct WorkerStats {
    std::vector<double> loopLagMs; ///< event-loop lateness samples
    std::vector<double> connectMs; ///< warm-up request times, one per pre-opened connection
    int connectFailures = 0; ///< warm-up requests that got no response (timed out or failed)
    QString connectError; ///< why the first of them failed
    /// CPU (user + system) of this worker's thread and of the QNAM HTTP threads it
    /// saw start, per thread id, from start() to the end of its part of the arm, in
    /// seconds. Workers that prepare at the same time can see each other's threads
    /// start, so the runner merges these by id. Other threads of the process (a
    /// dashboard's drawing, the next arm's bootstrap) are never in it.
    std::vector<std::pair<ThreadId, double>> threadCpuS;
};

/// Sends and measures requests in one worker thread. Qt 6.4 opens at most 6
/// HTTP/1.1 connections per host and QNetworkAccessManager, so a worker keeps
/// one QNAM per 6 concurrent streams (DESIGN.md section 10). Created objects
/// live in the worker thread: QNAMs are made in prepare(), not the constructor.
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
        QNetworkAccessManager* nam = nullptr;
        qint64 deadlineUs = 0;
        QString abortReason;
    };

    QNetworkAccessManager* pickManager();
    void onPreconnected(QNetworkReply* reply, QNetworkAccessManager* nam, qint64 startedUs);
    void abortPreconnects();
    /// The process's threads now if `nam` has no known HTTP thread yet, else empty.
    std::vector<ThreadId> threadsBeforeFirstUse(QNetworkAccessManager* nam) const;
    /// Records the thread(s) that `nam`'s first request `reply` started.
    void noteNewThreads(QNetworkAccessManager* nam, QNetworkReply* reply, const std::vector<ThreadId>& before);
    std::vector<std::pair<ThreadId, double>> loadThreadCpu() const;
    void launchClosedLoop();
    /// Sends the session's current turn on its slot, or frees the slot when the load is done.
    void launchTurn(std::shared_ptr<Session> session);
    void scheduleNextArrival();
    void send(qint64 index, qint64 tSchedUs, std::shared_ptr<Session> session = nullptr);
    void serveUploads();
    void onReadyRead(QNetworkReply* reply);
    void onFinished(QNetworkReply* reply);
    void sweepTimeouts();
    void flushRecords();
    void checkDone();
    qint64 nowUs() const { return monotonicUs() - m_state->t0Us; }

    std::shared_ptr<SharedLoadState> m_state;
    int m_index;
    int m_workerCount;
    int m_slots;
    std::vector<QNetworkAccessManager*> m_managers;
    std::vector<QNetworkAccessManager*> m_managersWithoutThread; ///< HTTP thread not found yet
    std::vector<ThreadId> m_threads; ///< the worker's own thread and its QNAMs' HTTP threads
    std::unordered_map<ThreadId, double> m_cpuAtStart;
    std::vector<QNetworkReply*> m_preconnects; ///< warm-up requests still running
    std::vector<QNetworkReply*> m_awaitingUpload; ///< posted, body not yet handed to the HTTP thread
    bool m_servingUploads = false;
    QHash<QNetworkAccessManager*, int> m_active;
    std::unordered_map<QNetworkReply*, InFlight> m_inFlight;
    QVector<RequestRecord> m_pending;
    QTimer m_flushTimer;
    QTimer m_sweepTimer;
    QTimer m_arrivalTimer;
    QTimer m_lagProbe;
    QTimer m_preconnectDeadline;
    qint64 m_lagExpectedUs = 0;
    std::size_t m_nextArrival = 0;
    int m_openSlots = 0;
    bool m_sending = false;
    bool m_finished = false;
    WorkerStats m_stats;
};

} // namespace ks

Q_DECLARE_METATYPE(ks::WorkerStats)
