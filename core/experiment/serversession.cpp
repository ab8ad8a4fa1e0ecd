#include "experiment/serversession.h"

#include "server/servercommandcheck.h"
#include "util/redact.h"

#include <QFileInfo>

namespace ks {

ServerSession::ServerSession(const ExperimentSpec& spec, QString outPath, QObject* parent)
    : QObject(parent)
    , m_spec(spec)
    , m_outPath(std::move(outPath))
{
}

ServerSession::~ServerSession() = default;

bool ServerSession::isRunning() const
{
    return m_launcher && m_launcher->isRunning();
}

void ServerSession::abandon()
{
    if (m_launcher)
        m_launcher->abandon();
}

void ServerSession::stopThen(AfterStop next)
{
    const bool stopping = m_afterStop.has_value();
    if (!stopping || next > *m_afterStop)
        m_afterStop = next;
    if (!stopping)
        m_launcher->stop();
}

void ServerSession::onStopped()
{
    m_up = false;
    emit eventOccurred(QStringLiteral("stopped"), {});
    const std::optional<AfterStop> next = std::exchange(m_afterStop, std::nullopt);
    if (!next)
        return; // it stopped itself after never becoming ready: launchFailed() moves on
    emit stoppedThen(*next);
}

void ServerSession::launch(const ConfigSpec& config)
{
    m_version = nullptr; // a new server: asked again once it is ready
    if (m_launcher)
        m_launcher.release()->deleteLater(); // may be inside one of its own signals
    m_launcher = std::make_unique<ServerLauncher>();
    connect(m_launcher.get(), &ServerLauncher::stopped, this, &ServerSession::onStopped);
    connect(m_launcher.get(), &ServerLauncher::outputLine, this, [this](const QString& line) {
        emit lineOutput(line);
        emit eventOccurred(QStringLiteral("output"), line);
    });
    connect(m_launcher.get(), &ServerLauncher::ready, this, [this](qint64 ms) {
        m_up = true;
        emit eventOccurred(QStringLiteral("ready"), QStringLiteral("ready after %1 ms").arg(ms));
        emit becameReady();
    });
    connect(m_launcher.get(), &ServerLauncher::failed, this, [this](LaunchError error, const QString& message) {
        emit eventOccurred(launchErrorName(error), message);
        m_up = false;
        emit launchFailed(message);
    });
    connect(m_launcher.get(), &ServerLauncher::exitedUnexpectedly, this, [this](const QString& message) {
        m_up = false;
        emit eventOccurred(QStringLiteral("exited"), message);
        emit exitedUnexpectedly(message);
    });
    ServerLauncher::Options options;
    options.argv = m_spec.serverCommand(config);
    options.readyUrl = m_spec.baseUrl.resolved(QUrl(m_spec.server->readyPath));
    options.readyTimeoutS = m_spec.server->readyTimeoutS;
    options.stopGraceS = m_spec.server->stopGraceS;
    options.logPath = QFileInfo(m_outPath).absolutePath() + QLatin1Char('/') + QFileInfo(m_outPath).completeBaseName()
        + QStringLiteral(".server.log");
    options.env = m_spec.serverEnvironment(config);
    emit eventOccurred(
        QStringLiteral("starting"), (redactEnv(options.env) + redactArgv(options.argv)).join(QLatin1Char(' ')));
    m_warnings = serverCommandWarnings(options.argv);
    for (const QString& warning : std::as_const(m_warnings)) {
        emit eventOccurred(QStringLiteral("warning"), warning);
        emit lineOutput(QStringLiteral("warning: ") + warning);
    }
    emit launching({ config.label, options.argv, options.env });
    m_launcher->start(options);
}

void ServerSession::askVersion()
{
    if (!m_versionProbe) {
        m_versionProbe = std::make_unique<ServerVersionProbe>();
        connect(m_versionProbe.get(), &ServerVersionProbe::finished, this, [this](const nlohmann::json& info) {
            m_version = info;
            emit eventOccurred(QStringLiteral("version"), serverVersionText(info));
            emit versionKnown();
        });
    }
    if (!m_spec.apiKeyEnv.isEmpty())
        m_versionProbe->setApiKey(qgetenv(m_spec.apiKeyEnv.toLocal8Bit().constData()));
    m_versionProbe->probe(m_spec.baseUrl);
}

void ServerSession::startScraping(qint64 t0Us)
{
    m_metricsProblem.clear();
    m_scraper = std::make_unique<MetricsScraper>(m_spec.baseUrl, t0Us);
    connect(m_scraper.get(), &MetricsScraper::sampled, this, &ServerSession::scraped);
    connect(m_scraper.get(), &MetricsScraper::unavailable, this, [this](const QString& reason) {
        m_metricsProblem = reason;
        emit eventOccurred(QStringLiteral("metrics_unavailable"), reason);
    });
    connect(m_scraper.get(), &MetricsScraper::failed, this, [this](const QString& reason) {
        if (!m_inMetricsGap) // one event per gap; the summary counts every failed scrape
            emit eventOccurred(QStringLiteral("metrics_gap"), reason + QStringLiteral("; retrying with back-off"));
        m_inMetricsGap = true;
    });
    connect(m_scraper.get(), &MetricsScraper::resumed, this, [this](qint64 gapMs) {
        m_inMetricsGap = false;
        emit eventOccurred(
            QStringLiteral("metrics_resumed"), QStringLiteral("after %1 ms without a sample").arg(gapMs));
    });
    m_scraper->start();
}

void ServerSession::finishScraping(std::function<void()> done)
{
    m_inMetricsGap = false;
    if (m_scraper)
        m_scraper->finish(std::move(done));
    else
        done();
}

} // namespace ks
