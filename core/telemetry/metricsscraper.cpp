#include "telemetry/metricsscraper.h"

#include "client/requestfactory.h"
#include "client/sharedloadstate.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <utility>

namespace ks {

MetricsScraper::MetricsScraper(const QUrl& baseUrl, qint64 t0Us, int intervalMs, QObject* parent)
    : PeriodicSampler(
        t0Us, { .intervalMs = intervalMs, .timeoutMs = kDefaultTimeoutMs, .maxBackOffMs = kMaxBackOffMs }, parent)
    , m_url(metricsUrl(baseUrl))
{
    qRegisterMetaType<ServerSample>();
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

void MetricsScraper::cancelSample()
{
    if (m_inFlight)
        m_inFlight->abort();
}

void MetricsScraper::finish(std::function<void()> done)
{
    stop();
    if (givenUp() || !m_firstHistograms || !m_nam) {
        done();
        return;
    }
    m_finalDone = std::move(done);
    if (!m_inFlight) // stop() aborted the periodic scrape; its answer would end this too
        sampleOnce();
}

void MetricsScraper::sampleOnce()
{
    if (!m_nam)
        m_nam = new QNetworkAccessManager(this);
    QNetworkRequest request(m_url);
    request.setRawHeader("User-Agent", RequestFactory::userAgent());
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setTransferTimeout(timeoutMs());
    m_inFlight = m_nam->get(request);
    connect(m_inFlight, &QNetworkReply::finished, this, [this, reply = m_inFlight] { onReply(reply); });
}

void MetricsScraper::onReply(QNetworkReply* reply)
{
    m_inFlight = nullptr;
    reply->deleteLater();
    if (m_finalDone) {
        // Only the histograms: the arm's gauges and gaps were closed by stop().
        if (reply->error() == QNetworkReply::NoError
            && reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200) {
            const std::vector<PromSample> samples = parsePrometheusText(reply->readAll()).samples;
            if (LatencyHistograms h = extractLatencyHistograms(samples); h.any())
                m_lastHistograms = std::move(h);
            m_finalSpecDecode = extractSpecDecode(samples);
        }
        std::exchange(m_finalDone, {})();
        return;
    }
    if (reply->error() == QNetworkReply::OperationCanceledError && !isActive())
        return; // stopped
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->error() != QNetworkReply::NoError || status != 200) {
        const bool timedOut = reply->error() == QNetworkReply::OperationCanceledError;
        const QString problem = status ? QStringLiteral("GET %1 answered HTTP %2").arg(m_url.toString()).arg(status)
            : timedOut ? QStringLiteral("GET %1 gave no answer within %2 ms").arg(m_url.toString()).arg(timeoutMs())
                       : QStringLiteral("GET %1 failed: %2").arg(m_url.toString(), reply->errorString());
        if (status >= 400 && status < 500)
            giveUp(problem); // no metrics endpoint here: asking again changes nothing
        else
            sampleFailed(problem);
        return;
    }
    const std::vector<PromSample> samples = parsePrometheusText(reply->readAll()).samples;
    if (LatencyHistograms histograms = extractLatencyHistograms(samples); histograms.any()) {
        if (!m_firstHistograms)
            m_firstHistograms = histograms;
        m_lastHistograms = std::move(histograms);
    }
    const ServerGauges gauges = extractServerGauges(samples);
    if (!gauges.any()) {
        giveUp(QStringLiteral("%1 has no running/waiting/KV-cache gauges knobscope knows").arg(m_url.toString()));
        return;
    }
    ServerSample sample;
    sample.tUs = sampleSucceeded() - t0Us();
    sample.running = gauges.running;
    sample.waiting = gauges.waiting;
    sample.kvCacheUsage = gauges.kvCacheUsage;
    sample.engine = gauges.engine;
    sample.specDecode = extractSpecDecode(samples);
    emit sampled(sample);
}

void ServerTally::add(const ServerSample& sample)
{
    if (sample.waiting) {
        maxWaiting = std::max(maxWaiting, *sample.waiting);
        ++samples;
        samplesWaiting += *sample.waiting >= 1 ? 1 : 0;
    }
    if (sample.running)
        maxRunning = std::max(maxRunning, *sample.running);
    if (sample.specDecode) {
        if (!firstSpec)
            firstSpec = sample.specDecode;
        lastSpec = sample.specDecode;
        if (sample.specDecode->acceptLength) {
            acceptLengthSum += *sample.specDecode->acceptLength;
            ++acceptLengthSamples;
        }
    }
}

void ServerTally::writeSpecDecode(nlohmann::json& summary, const std::optional<SpecDecodeCounters>& finalScrape) const
{
    if (!firstSpec)
        return;
    const SpecDecodeCounters& last = finalScrape && finalScrape->counters ? *finalScrape : *lastSpec;
    if (const double acceptance = specAcceptance(*firstSpec, last); acceptance >= 0)
        summary["spec_acceptance"] = acceptance;
    if (const double mean = specMeanAccepted(*firstSpec, last); mean >= 0)
        summary["spec_mean_accepted"] = mean;
    else if (acceptLengthSamples > 0) // SGLang: its gauge already is tokens per verify step
        summary["spec_mean_accepted"] = acceptLengthSum / acceptLengthSamples;
}

nlohmann::json ServerTally::summary(const QString& metricsProblem, const MetricsScraper* scraper) const
{
    auto orNull = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    return { { "max_waiting", orNull(maxWaiting) }, { "max_running", orNull(maxRunning) }, { "samples", samples },
        { "waiting_share", samples > 0 ? nlohmann::json(double(samplesWaiting) / samples) : nlohmann::json(nullptr) },
        { "metrics", metricsProblem.isEmpty() ? nlohmann::json("ok") : nlohmann::json(metricsProblem.toStdString()) },
        { "scrape_failures", scraper ? scraper->failures() : 0 },
        { "longest_scrape_gap_ms", scraper ? scraper->longestGapMs() : 0 } };
}

std::string scrapeGapWarning(const MetricsScraper& scraper)
{
    return std::to_string(scraper.failures())
        + " metrics scrapes failed and were retried (longest gap without a sample "
        + std::to_string(scraper.longestGapMs()) + " ms); queue-depth charts have gaps there";
}

} // namespace ks
