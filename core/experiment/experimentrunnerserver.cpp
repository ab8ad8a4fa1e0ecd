// The runner's server side: launching, restarting and stopping the server a
// spec starts, and what is recorded about it (scrapes, lifecycle events).
#include "experiment/experimentrunner.h"

#include "server/servercommandcheck.h"
#include "util/qstringtext.h"
#include "util/redact.h"

#include <QFileInfo>

namespace ks {

void ExperimentRunner::restartServer()
{
    if (m_launcher && m_launcher->isRunning())
        stopServerThen(AfterServerStop::LaunchServer);
    else
        launchServer();
}

void ExperimentRunner::stopServerThen(AfterServerStop next)
{
    // One stop at a time; Finish outranks the others (Stop while a restart waits).
    const bool stopping = m_afterServerStop.has_value();
    if (!stopping || next > *m_afterServerStop)
        m_afterServerStop = next;
    if (!stopping)
        m_launcher->stop();
}

void ExperimentRunner::onServerStopped()
{
    m_serverUp = false;
    serverEvent(QStringLiteral("stopped"), {});
    const std::optional<AfterServerStop> next = std::exchange(m_afterServerStop, std::nullopt);
    if (!next)
        return; // it stopped itself after never becoming ready: failed() moves on
    if (m_stopRequested || *next == AfterServerStop::Finish) {
        finishExperiment();
        return;
    }
    if (*next == AfterServerStop::LaunchServer)
        QMetaObject::invokeMethod(this, &ExperimentRunner::launchServer, Qt::QueuedConnection);
    else
        QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::launchServer()
{
    if (m_stopRequested) {
        finishExperiment();
        return;
    }
    const ConfigSpec& config = m_spec.configs[m_config];
    m_serverVersion = nullptr; // a new server: asked again once it is ready
    if (m_launcher)
        m_launcher.release()->deleteLater(); // may be inside one of its own signals
    m_launcher = std::make_unique<ServerLauncher>();
    connect(m_launcher.get(), &ServerLauncher::stopped, this, &ExperimentRunner::onServerStopped);
    connect(m_launcher.get(), &ServerLauncher::outputLine, this, [this](const QString& line) {
        emit serverLine(line);
        serverEvent(QStringLiteral("output"), line);
    });
    connect(m_launcher.get(), &ServerLauncher::ready, this, [this](qint64 ms) {
        m_serverUp = true;
        serverEvent(QStringLiteral("ready"), QStringLiteral("ready after %1 ms").arg(ms));
        probeServerThenStartArm();
    });
    connect(m_launcher.get(), &ServerLauncher::failed, this, [this](LaunchError error, const QString& message) {
        serverEvent(launchErrorName(error), message);
        m_problems << QStringLiteral("%1: %2").arg(m_spec.configs[m_config].label, message);
        m_serverUp = false;
        concludeSearchProbe(); // a probe that could not start has no figure
        ++m_config; // this configuration cannot run; the next one may
        QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
    });
    connect(m_launcher.get(), &ServerLauncher::exitedUnexpectedly, this, [this](const QString& message) {
        m_serverUp = false;
        serverEvent(QStringLiteral("exited"), message);
        m_armProblem = message;
        if (m_load)
            m_load->stop(); // ends this arm; the runner moves to the next configuration
    });
    ServerLauncher::Options options;
    options.argv = m_spec.serverCommand(config);
    options.readyUrl = m_spec.baseUrl.resolved(QUrl(m_spec.server->readyPath));
    options.readyTimeoutS = m_spec.server->readyTimeoutS;
    options.stopGraceS = m_spec.server->stopGraceS;
    options.logPath = QFileInfo(m_outPath).absolutePath() + QLatin1Char('/') + QFileInfo(m_outPath).completeBaseName()
        + QStringLiteral(".server.log");
    options.env = m_spec.serverEnvironment(config);
    serverEvent(QStringLiteral("starting"), (redactEnv(options.env) + redactArgv(options.argv)).join(QLatin1Char(' ')));
    m_serverWarnings = serverCommandWarnings(options.argv);
    for (const QString& warning : std::as_const(m_serverWarnings)) {
        serverEvent(QStringLiteral("warning"), warning);
        emit serverLine(QStringLiteral("warning: ") + warning);
    }
    emit serverStarting({ config.label, options.argv, options.env });
    m_launcher->start(options);
}

void ExperimentRunner::writeServerSample(const ServerSample& s)
{
    auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json line = { { "type", "server" }, { "run", text(m_run) }, { "t_us", s.tUs },
        { "running", value(s.running) }, { "waiting", value(s.waiting) }, { "kv_cache_usage", value(s.kvCacheUsage) },
        { "engine", text(s.engine) } };
    if (s.specDecode) {
        line["spec_decode"] = specDecodeJson(*s.specDecode);
        m_snapshots.addSpecDecode(*s.specDecode);
    }
    m_writer.write(line);
    m_snapshots.addServerSample(s.running.value_or(-1), s.waiting.value_or(-1), s.kvCacheUsage.value_or(-1));
    m_serverTally.add(s);
}

void ExperimentRunner::probeServerThenStartArm()
{
    if (!m_serverVersion.is_null()) { // asked once per server
        startArm();
        return;
    }
    if (!m_versionProbe) {
        m_versionProbe = std::make_unique<ServerVersionProbe>();
        connect(m_versionProbe.get(), &ServerVersionProbe::finished, this, [this](const nlohmann::json& info) {
            m_serverVersion = info;
            serverEvent(QStringLiteral("version"), serverVersionText(info));
            QMetaObject::invokeMethod(this, &ExperimentRunner::startArm, Qt::QueuedConnection);
        });
    }
    if (!m_spec.apiKeyEnv.isEmpty())
        m_versionProbe->setApiKey(qgetenv(m_spec.apiKeyEnv.toLocal8Bit().constData()));
    m_versionProbe->probe(m_spec.baseUrl);
}

} // namespace ks
