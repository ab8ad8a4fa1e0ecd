#pragma once

#include "run/prometheustext.h"

#include <QMetaType>
#include <QObject>
#include <QTimer>
#include <QUrl>

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
};

/// Polls GET /metrics (Prometheus text) on a fixed interval during an arm and
/// emits the gauges it knows. A server without usable metrics is reported once
/// through unavailable() and not asked again. Lives in the thread that starts it.
class MetricsScraper : public QObject {
    Q_OBJECT
public:
    MetricsScraper(const QUrl& baseUrl, qint64 t0Us, int intervalMs = 250, QObject* parent = nullptr);

    void start();
    void stop();
    /// The /metrics URL for a target base URL (at the server root, as vLLM, SGLang and llama.cpp serve it).
    static QUrl metricsUrl(const QUrl& baseUrl);

signals:
    void sampled(const ks::ServerSample& sample);
    void unavailable(const QString& reason);

private:
    void scrape();
    void onReply(QNetworkReply* reply);

    QUrl m_url;
    qint64 m_t0Us;
    QTimer m_timer;
    QNetworkAccessManager* m_nam = nullptr;
    QNetworkReply* m_inFlight = nullptr;
    bool m_givenUp = false;
};

} // namespace ks

Q_DECLARE_METATYPE(ks::ServerSample)
