#pragma once

#include "arrivalwatch.h"
#include "completionsession.h"
#include "engineloop.h"
#include "latencyhistograms.h"
#include "simoptions.h"
#include "truthlog.h"

#include <QObject>
#include <QTcpServer>

#include <map>
#include <memory>
#include <unordered_map>

namespace kssim {

class SimConnection;

/// knobscope-sim's HTTP front: accepts connections, routes the OpenAI endpoints,
/// /health, /v1/models and /metrics, and connects completion sessions to the engine.
class SimServer : public QObject {
    Q_OBJECT
public:
    explicit SimServer(SimOptions options, QObject* parent = nullptr);
    ~SimServer() override;

    bool start(QString* error);
    quint16 port() const { return m_tcp.serverPort(); }
    /// Stops accepting, ends every stream with a visible error, flushes the truth log.
    void shutdown();

signals:
    void stopped();

private:
    void onNewConnection();
    void onRequest(kssim::SimConnection* connection, const kssim::HttpRequest& request, qint64 arrivalUs);
    void onConnectionClosed(kssim::SimConnection* connection);
    void onStepFinished(const kssim::StepOutcome& outcome, qint64 startUs, qint64 endUs);
    void handleCompletion(SimConnection* connection, const HttpRequest& request, Endpoint endpoint, qint64 arrivalUs);
    void completeTruth(std::uint64_t engineId);
    void logRejected(const HttpRequest& request, Endpoint endpoint, int status, const QString& fault, qint64 arrivalUs);
    QByteArray modelsBody() const;
    QByteArray metricsBody() const;

    SimOptions m_options;
    ArrivalWatch m_arrivals;
    QTcpServer m_tcp;
    EngineLoop m_loop;
    FaultPlan m_faults;
    TruthLog m_truthLog;
    LatencyHistograms m_latency;
    std::uint64_t m_nextId = 1;
    qint64 m_startedAt = 0;
    std::unordered_map<std::uint64_t, std::unique_ptr<CompletionSession>> m_sessions;
    std::unordered_map<SimConnection*, std::uint64_t> m_sessionOfConnection;
    int m_openConnections = 0;
    int m_peakOpenConnections = 0;
    std::map<QByteArray, quint64> m_successByReason;
    quint64 m_promptTokensTotal = 0;
    quint64 m_generationTokensTotal = 0;
    quint64 m_failedTotal = 0;
    bool m_shuttingDown = false;
};

} // namespace kssim
