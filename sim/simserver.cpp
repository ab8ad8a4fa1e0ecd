#include "simserver.h"

#include "hashing.h"
#include "simconnection.h"
#include "util/monotonicclock.h"

#include <QDateTime>
#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QTcpSocket>

#include <nlohmann/json.hpp>

Q_LOGGING_CATEGORY(lcSimServer, "ks.sim.server")

namespace kssim {

namespace {
constexpr int kListenBacklog = 4096;

// Where vLLM tells its version, with "engine" naming the server, so a probe
// for the server's version (core/server/serverversion.h) tells them apart.
QByteArray versionBody()
{
    return QByteArray::fromStdString(
        nlohmann::json { { "version", KNOBSCOPE_VERSION }, { "engine", "knobscope-sim" } }.dump());
}
} // namespace

SimServer::SimServer(SimOptions options, QObject* parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_loop(m_options.engine)
    , m_faults(m_options.faults, m_options.faultSeed)
{
    connect(&m_tcp, &QTcpServer::newConnection, this, &SimServer::onNewConnection);
    connect(&m_loop, &EngineLoop::stepFinished, this, &SimServer::onStepFinished);
}

SimServer::~SimServer()
{
    // Connections are children, which QObject deletes only after the members,
    // and each one unregisters from m_arrivals as it goes.
    m_sessions.clear();
    qDeleteAll(findChildren<SimConnection*>(Qt::FindDirectChildrenOnly));
}

bool SimServer::start(QString* error)
{
    if (!m_options.truthLogPath.isEmpty() && !m_truthLog.open(m_options.truthLogPath, error)) {
        *error = QStringLiteral("cannot write truth log %1: %2").arg(m_options.truthLogPath, *error);
        return false;
    }
    m_tcp.setListenBacklogSize(kListenBacklog);
    m_tcp.setMaxPendingConnections(kListenBacklog);
    if (!m_tcp.listen(m_options.host, m_options.port)) {
        *error = QStringLiteral("cannot listen on %1:%2: %3")
                     .arg(m_options.host.toString())
                     .arg(m_options.port)
                     .arg(m_tcp.errorString());
        return false;
    }
    if (m_options.kernelArrivalStamps)
        ArrivalWatch::enableReceiveTimestamps(m_tcp.socketDescriptor());
    m_startedAt = QDateTime::currentSecsSinceEpoch();
    return true;
}

void SimServer::onNewConnection()
{
    while (QTcpSocket* socket = m_tcp.nextPendingConnection()) {
        auto* connection
            = new SimConnection(socket, m_options.limits, m_options.kernelArrivalStamps ? &m_arrivals : nullptr, this);
        connect(connection, &SimConnection::requestReceived, this, &SimServer::onRequest);
        connect(connection, &SimConnection::closed, this, &SimServer::onConnectionClosed);
        ++m_openConnections;
        m_peakOpenConnections = std::max(m_peakOpenConnections, m_openConnections);
    }
}

void SimServer::onConnectionClosed(SimConnection* connection)
{
    --m_openConnections;
    if (auto it = m_sessionOfConnection.find(connection); it != m_sessionOfConnection.end()) {
        const std::uint64_t id = it->second;
        if (auto session = m_sessions.find(id); session != m_sessions.end()) {
            session->second->onClientGone(ks::monotonicUs());
            m_loop.cancel(id);
            completeTruth(id);
        }
    }
    connection->deleteLater();
}

void SimServer::onRequest(SimConnection* connection, const HttpRequest& request, qint64 arrivalUs)
{
    const QByteArray path = request.path();
    const bool get = request.method == "GET";
    const bool post = request.method == "POST";
    auto notAllowed = [&] {
        connection->sendResponse(405, "application/json",
            errorBody({ 405, QStringLiteral("method not allowed"), QStringLiteral("MethodNotAllowed"), {} }));
    };
    if (path == "/health") {
        get ? connection->sendResponse(200, "text/plain", {}) : notAllowed();
    } else if (path == "/v1/models") {
        get ? connection->sendResponse(200, "application/json", modelsBody()) : notAllowed();
    } else if (path == "/version") {
        get ? connection->sendResponse(200, "application/json", versionBody()) : notAllowed();
    } else if (path == "/metrics") {
        get ? connection->sendResponse(200, "text/plain; version=0.0.4; charset=utf-8", metricsBody()) : notAllowed();
    } else if (path == "/v1/completions") {
        post ? handleCompletion(connection, request, Endpoint::Completions, arrivalUs) : notAllowed();
    } else if (path == "/v1/chat/completions") {
        post ? handleCompletion(connection, request, Endpoint::Chat, arrivalUs) : notAllowed();
    } else {
        connection->sendResponse(404, "application/json",
            errorBody({ 404, QStringLiteral("no route for %1").arg(QString::fromUtf8(path)),
                QStringLiteral("NotFoundError"), {} }));
    }
}

void SimServer::logRejected(
    const HttpRequest& request, Endpoint endpoint, int status, const QString& fault, qint64 arrivalUs)
{
    TruthRecord truth;
    truth.id = QByteArray(endpoint == Endpoint::Chat ? "chatcmpl-" : "cmpl-") + QByteArray::number(m_nextId++);
    truth.clientRequestId = request.header("x-request-id");
    truth.endpoint = endpoint == Endpoint::Chat ? "chat" : "completions";
    truth.status = status;
    truth.fault = fault;
    truth.arrivalUs = arrivalUs;
    truth.endUs = ks::monotonicUs();
    m_truthLog.append(truth);
    ++m_failedTotal;
}

void SimServer::handleCompletion(
    SimConnection* connection, const HttpRequest& request, Endpoint endpoint, qint64 arrivalUs)
{
    const SimProfile& profile = m_options.engine.profile;
    auto parsed = parseCompletionRequest(request.body, endpoint, m_options.servedModelName, profile.maxModelLen);
    if (auto* error = std::get_if<ApiError>(&parsed)) {
        connection->sendResponse(error->status, "application/json", errorBody(*error));
        logRejected(request, endpoint, error->status, QStringLiteral("none"), arrivalUs);
        return;
    }
    const CompletionRequest& req = std::get<CompletionRequest>(parsed);
    const Fault fault = m_faults.draw();
    if (fault == Fault::Http500) {
        connection->sendResponse(500, "application/json",
            errorBody({ 500, QStringLiteral("simulated internal error (--fail-500)"),
                QStringLiteral("InternalServerError"), {} }));
        logRejected(request, endpoint, 500, faultName(fault), arrivalUs);
        return;
    }
    if (fault == Fault::Http429) {
        const QByteArray retryAfter = QByteArray::number(m_options.faults.retryAfterS);
        connection->sendResponse(429, "application/json",
            errorBody(
                { 429, QStringLiteral("simulated rate limit (--fail-429)"), QStringLiteral("RateLimitError"), {} }),
            { { "retry-after", retryAfter } });
        logRejected(request, endpoint, 429, faultName(fault), arrivalUs);
        return;
    }

    const std::uint64_t id = m_nextId++;
    OutputSeed seed;
    seed.promptHash = hashBytes(req.promptKey);
    seed.processSeed = m_options.engineSeed;
    if (req.temperature > 0)
        seed.samplingKey = req.seed ? mix64(*req.seed + 1) : QRandomGenerator::global()->generate64() | 1;
    const int outputTokens = req.ignoreEos ? req.maxTokens : OutputStream::drawLength(profile, seed, req.maxTokens);

    auto truth = std::make_shared<TruthRecord>();
    truth->id = QByteArray(endpoint == Endpoint::Chat ? "chatcmpl-" : "cmpl-") + QByteArray::number(id);
    truth->clientRequestId = request.header("x-request-id");
    truth->endpoint = endpoint == Endpoint::Chat ? "chat" : "completions";
    truth->stream = req.stream;
    truth->promptTokens = req.promptTokens;
    truth->images = req.images;
    truth->imageTokens = req.imageTokens;
    truth->imageBytes = req.imageBytes;
    truth->maxTokens = req.maxTokens;
    truth->outputTokens = outputTokens;
    truth->fault = faultName(fault);
    truth->arrivalUs = arrivalUs;
    if (m_options.truthLogPrompts)
        truth->prompt = req.promptKey;

    CompletionSession::Setup setup;
    setup.engineId = id;
    setup.request = req;
    setup.seed = seed;
    setup.outputTokens = outputTokens;
    setup.fault = fault;
    setup.stallMs = m_options.faults.stallMs;
    setup.wire = m_options.wire;
    setup.wireSeed = combine(m_options.faultSeed, id);
    setup.created = QDateTime::currentSecsSinceEpoch();
    // Deferred: the last write can complete inside a session method, which must
    // not see its own session destroyed underneath it.
    setup.onComplete = [this, id] {
        QMetaObject::invokeMethod(
            this, [this, id] { completeTruth(id); }, Qt::QueuedConnection);
    };

    auto session = std::make_unique<CompletionSession>(profile, std::move(setup), truth, connection);
    session->start();
    m_sessions.emplace(id, std::move(session));
    m_sessionOfConnection[connection] = id;
    m_promptTokensTotal += quint64(req.promptTokens);
    m_loop.submit({ id, req.promptTokens, outputTokens, seed.promptHash }, req.blocks);
}

void SimServer::onStepFinished(const StepOutcome& outcome, qint64 startUs, qint64)
{
    for (const Admission& a : outcome.admitted) {
        if (auto it = m_sessions.find(a.id); it != m_sessions.end())
            it->second->onAdmitted(a, startUs);
    }
    const std::int64_t now = ks::monotonicUs();
    for (const TokenEmission& e : outcome.emissions) {
        auto it = m_sessions.find(e.id);
        if (it == m_sessions.end())
            continue;
        m_generationTokensTotal += quint64(e.count);
        const std::shared_ptr<TruthRecord> truth = it->second->truth();
        if (e.draftTokens > 0) {
            ++truth->specDrafts;
            truth->specDraftTokens += e.draftTokens;
            truth->specAcceptedTokens += e.acceptedTokens;
        }
        const CompletionSession::State state = it->second->onToken(e, outcome.decodeBatch, now);
        if (e.tokenIndex == 0 && state != CompletionSession::State::Aborted) {
            it->second->setFirstTokenUs(now);
            m_latency.observeFirstToken(truth->arrivalUs, now);
        }
        if (state == CompletionSession::State::Aborted) {
            // The record completes when the error's last byte is written or the
            // connection-closed handler runs, so it carries the real end time.
            m_loop.cancel(e.id);
        } else if (state == CompletionSession::State::Finished) {
            if (truth->fault == QLatin1String("none") || truth->fault == QLatin1String("stall")) {
                ++m_successByReason[truth->finishReason];
                m_latency.observeFinished(truth->arrivalUs, truth->admittedUs, it->second->firstTokenUs(), now);
            } else
                ++m_failedTotal;
        }
    }
}

void SimServer::completeTruth(std::uint64_t engineId)
{
    // Hundreds of these can run back to back when a wave of streams ends.
    m_arrivals.pollIfDue();
    auto it = m_sessions.find(engineId);
    if (it == m_sessions.end())
        return;
    const std::shared_ptr<TruthRecord> truth = it->second->truth();
    if (!truth->logged) {
        truth->logged = true;
        m_truthLog.append(*truth);
    }
    if (auto c = m_sessionOfConnection.find(it->second->connection());
        c != m_sessionOfConnection.end() && c->second == engineId)
        m_sessionOfConnection.erase(c);
    m_sessions.erase(it);
}

void SimServer::shutdown()
{
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    m_tcp.close();
    const std::int64_t now = ks::monotonicUs();
    std::vector<std::uint64_t> ids;
    for (const auto& [id, session] : m_sessions)
        ids.push_back(id);
    for (std::uint64_t id : ids) {
        m_loop.cancel(id);
        if (auto it = m_sessions.find(id); it != m_sessions.end()) {
            it->second->abortForShutdown(now);
            completeTruth(id);
        }
    }
    m_truthLog.close();
    // Give queued error events a moment to reach the clients before exiting.
    QTimer::singleShot(200, this, &SimServer::stopped);
}

QByteArray SimServer::modelsBody() const
{
    const std::string name = m_options.servedModelName.toStdString();
    nlohmann::json model
        = { { "id", name }, { "object", "model" }, { "created", m_startedAt }, { "owned_by", "knobscope-sim" },
              { "root", name }, { "parent", nullptr }, { "max_model_len", m_options.engine.profile.maxModelLen } };
    return QByteArray::fromStdString(nlohmann::json({ { "object", "list" }, { "data", { model } } }).dump());
}

} // namespace kssim
