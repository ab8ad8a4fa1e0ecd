#include "run/metricsscraper.h"

#include "client/requestfactory.h"
#include "client/sharedloadstate.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

namespace ks {

MetricsScraper::MetricsScraper(const QUrl& baseUrl, qint64 t0Us, int intervalMs, QObject* parent)
    : QObject(parent)
    , m_url(metricsUrl(baseUrl))
    , m_t0Us(t0Us)
    , m_timer(this)
{
    qRegisterMetaType<ServerSample>();
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &MetricsScraper::scrape);
}

QUrl MetricsScraper::metricsUrl(const QUrl& baseUrl)
{
    QUrl url = baseUrl;
    QString path = url.path();
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (path.endsWith(QLatin1String("/v1")))
        path.chop(3);
    url.setPath(path + QStringLiteral("/metrics"));
    return url;
}

void MetricsScraper::start()
{
    if (!m_nam)
        m_nam = new QNetworkAccessManager(this);
    m_timer.start();
    scrape();
}

void MetricsScraper::stop()
{
    m_timer.stop();
    if (m_inFlight)
        m_inFlight->abort();
}

void MetricsScraper::scrape()
{
    if (m_inFlight || m_givenUp)
        return; // one request at a time: a slow server is sampled less often, never piled up
    QNetworkRequest request(m_url);
    request.setRawHeader("User-Agent", RequestFactory::userAgent());
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setTransferTimeout(2000);
    m_inFlight = m_nam->get(request);
    connect(m_inFlight, &QNetworkReply::finished, this, [this, reply = m_inFlight] { onReply(reply); });
}

void MetricsScraper::onReply(QNetworkReply* reply)
{
    m_inFlight = nullptr;
    reply->deleteLater();
    if (reply->error() == QNetworkReply::OperationCanceledError && !m_timer.isActive())
        return; // stopped
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    QString problem;
    ServerGauges gauges;
    if (reply->error() != QNetworkReply::NoError || status != 200) {
        problem = status ? QStringLiteral("GET %1 answered HTTP %2").arg(m_url.toString()).arg(status)
                         : QStringLiteral("GET %1 failed: %2").arg(m_url.toString(), reply->errorString());
    } else {
        gauges = extractServerGauges(parsePrometheusText(reply->readAll()).samples);
        if (!gauges.any())
            problem = QStringLiteral("%1 has no running/waiting/KV-cache gauges knobscope knows").arg(m_url.toString());
    }
    if (!problem.isEmpty()) {
        m_givenUp = true;
        m_timer.stop();
        emit unavailable(problem);
        return;
    }
    ServerSample sample;
    sample.tUs = monotonicUs() - m_t0Us;
    sample.running = gauges.running;
    sample.waiting = gauges.waiting;
    sample.kvCacheUsage = gauges.kvCacheUsage;
    sample.engine = gauges.engine;
    emit sampled(sample);
}

} // namespace ks
