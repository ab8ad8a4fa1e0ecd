#include "metricsendpoint.h"

#include "experiment/experimentrunner.h"
#include "load/loadrunner.h"

#include <QHttpServer>
#include <QHttpServerResponse>
#include <QThread>

MetricsEndpoint::MetricsEndpoint()
    : m_server(std::make_unique<QHttpServer>())
{
    m_server->route(QStringLiteral("/metrics"), [this] {
        return QHttpServerResponse(QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8"), scrape());
    });
}

MetricsEndpoint::~MetricsEndpoint() = default;

quint16 MetricsEndpoint::listen(const QHostAddress& address, quint16 port, QString* error)
{
    const quint16 bound = m_server->listen(address, port);
    if (bound == 0)
        *error = QStringLiteral("--metrics-port %1 --metrics-host %2: cannot listen (port in use, a privileged "
                                "port, or an address this machine does not have?)")
                     .arg(port)
                     .arg(address.toString());
    return bound;
}

QString MetricsEndpoint::url(const QHostAddress& address, quint16 port)
{
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
        ? QLatin1Char('[') + address.toString() + QLatin1Char(']')
        : address.toString();
    return QStringLiteral("http://%1:%2/metrics").arg(host).arg(port);
}

void MetricsEndpoint::follow(ks::ExperimentRunner& runner)
{
    connect(&runner, &ks::ExperimentRunner::runStarted, this, [this](const ks::RunInfo& info) {
        m_run = info.run;
        m_exposition.setInFlight(info.run, 0);
    });
    connect(&runner, &ks::ExperimentRunner::recordsWritten, this,
        [this](
            const QString& run, const QVector<ks::RequestRecord>& records) { m_exposition.addRecords(run, records); });
    connect(&runner, &ks::ExperimentRunner::progressed, this, [this](const ks::LoadProgress& progress) {
        if (!m_run.isEmpty())
            m_exposition.setInFlight(m_run, progress.inFlight);
    });
    connect(
        &runner, &ks::ExperimentRunner::runFinished, this, [this](const QString& run, const ks::RunSummary& summary) {
            m_exposition.setClientBound(run, summary.clientBound());
        });
}

QByteArray MetricsEndpoint::scrape()
{
    const double cpu = ks::processCpuSeconds();
    if (m_cpuAtScrape >= 0 && m_sinceScrape.elapsed() > 0) {
        const double wallS = double(m_sinceScrape.elapsed()) / 1000.0;
        m_exposition.setClientCpu((cpu - m_cpuAtScrape) / (wallS * std::max(1, QThread::idealThreadCount())));
    }
    m_cpuAtScrape = cpu;
    m_sinceScrape.restart();
    return m_exposition.render();
}
