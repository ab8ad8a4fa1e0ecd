#pragma once

#include "telemetry/periodicsampler.h"
#include "telemetry/prometheustext.h"

#include <QMetaType>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <functional>

class QNetworkAccessManager;
class QNetworkReply;

namespace ks {

/// One scrape of the server's own gauges, at `tUs` after the run's t0.
struct ServerSample {
    qint64 tUs = 0;
    std::optional<double> running;
    std::optional<double> waiting;
    std::optional<double> kvCacheUsage;
    QString engine;
    std::optional<SpecDecodeCounters> specDecode; ///< when the server publishes spec-decode figures
};

class MetricsScraper;

/// An arm's scrapes summed up for its summary's `server` object.
struct ServerTally {
    double maxWaiting = -1;
    double maxRunning = -1;
    int samples = 0; ///< scrapes that reported the waiting count
    int samplesWaiting = 0; ///< of those, the ones with a request waiting
    std::optional<SpecDecodeCounters> firstSpec, lastSpec; ///< the arm's first and latest spec-decode scrape
    double acceptLengthSum = 0; ///< SGLang's accept-length gauge, summed over scrapes
    int acceptLengthSamples = 0;
    void add(const ServerSample& sample);
    /// Adds `spec_acceptance` and `spec_mean_accepted` to an arm's summary: vLLM's
    /// counter deltas from the first scrape to `finalScrape` (the scrape after the
    /// arm's last completion, when there was one) or the latest; SGLang's mean
    /// accept length. Nothing when the server published no spec-decode figures.
    void writeSpecDecode(nlohmann::json& summary, const std::optional<SpecDecodeCounters>& finalScrape) const;
    /// `metricsProblem`: why the server has no usable metrics, empty if it has;
    /// `scraper` may be null (no scraper ran).
    nlohmann::json summary(const QString& metricsProblem, const MetricsScraper* scraper) const;
};

/// Polls GET /metrics (Prometheus text) on a fixed interval during an arm and
/// emits the gauges it knows. A server without usable metrics (HTTP 4xx, or no
/// gauge knobscope knows) is reported once through unavailable() and not asked
/// again. A scrape that fails for a passing reason (timeout, connection error,
/// HTTP 5xx) is reported through failed() and retried with back-off, doubling
/// from the interval up to kMaxBackOffMs; resumed() gives the gap when samples
/// come back. Lives in the thread that starts it.
class MetricsScraper : public PeriodicSampler {
    Q_OBJECT
public:
    MetricsScraper(const QUrl& baseUrl, qint64 t0Us, int intervalMs = 250, QObject* parent = nullptr);

    static constexpr int kDefaultTimeoutMs = 2000;
    static constexpr int kMaxBackOffMs = 4000;

    /// Stops, then, where the server publishes vLLM's latency histograms, scrapes
    /// once more so lastHistograms() holds every request the arm finished (the
    /// last periodic scrape can be an interval before the last completion);
    /// `done` runs when that scrape answers or fails, at once when there is none.
    void finish(std::function<void()> done);
    /// vLLM's latency histograms at this scraper's first and latest scrape that
    /// had them (an arm's scraper starts with the arm): their difference is
    /// what the server saw during the arm (ttftSplitFromHistograms()).
    const std::optional<LatencyHistograms>& firstHistograms() const { return m_firstHistograms; }
    const std::optional<LatencyHistograms>& lastHistograms() const { return m_lastHistograms; }
    /// Spec-decode figures of finish()'s final scrape, when it had them.
    const std::optional<SpecDecodeCounters>& finalSpecDecode() const { return m_finalSpecDecode; }
    /// The /metrics URL for a target base URL (at the server root, as vLLM, SGLang and llama.cpp serve it).
    static QUrl metricsUrl(const QUrl& baseUrl);

signals:
    void sampled(const ks::ServerSample& sample);

private:
    void sampleOnce() override;
    bool sampleInFlight() const override { return m_inFlight != nullptr; }
    void cancelSample() override;
    QString source() const override { return m_url.toString(); }
    void onReply(QNetworkReply* reply);

    QUrl m_url;
    QNetworkAccessManager* m_nam = nullptr;
    QNetworkReply* m_inFlight = nullptr;
    std::optional<LatencyHistograms> m_firstHistograms;
    std::optional<LatencyHistograms> m_lastHistograms;
    std::optional<SpecDecodeCounters> m_finalSpecDecode;
    std::function<void()> m_finalDone; ///< set while the final scrape of finish() is out
};

/// The summary warning for scrapes that failed and were retried.
std::string scrapeGapWarning(const MetricsScraper& scraper);

} // namespace ks

Q_DECLARE_METATYPE(ks::ServerSample)
