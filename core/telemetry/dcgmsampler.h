#pragma once

#include "telemetry/gpusampler.h"
#include "telemetry/prometheustext.h"

#include <QObject>
#include <QTimer>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

namespace ks {

/// The GPUs in a DCGM exporter's Prometheus text: DCGM_FI_DEV_GPU_UTIL (%),
/// DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_FB_FREE and DCGM_FI_DEV_FB_RESERVED (MiB;
/// their sum is the total, as nvidia-smi counts it) and DCGM_FI_DEV_POWER_USAGE
/// (W), per `gpu="N"` label, ordered by index. Series of a MIG instance (a
/// GPU_I_ID label) and DCGM's "blank" values (no reading) are left out; a GPU
/// with none of these metrics is not listed.
std::vector<GpuReading> gpuReadingsFromDcgm(const std::vector<PromSample>& samples);

/// GpuSampler's counterpart for a host whose GPUs are read by a DCGM exporter
/// (the usual way on Kubernetes, where nvidia-smi is not in the benchmark's
/// container): GETs the exporter's URL on an interval, one request at a time,
/// and emits the same signals. HTTP 4xx or an answer without DCGM GPU metrics
/// is reported once through unavailable(); a timeout, connection error or 5xx
/// through failed() and retried at the next interval, until
/// GpuSampler::kMaxConsecutiveFailures in a row give up. A sample is stamped
/// when its request was sent. Lives in the thread that starts it.
class DcgmSampler : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 2000;

    /// `url`: the exporter's metrics URL; a URL without a path gets "/metrics".
    DcgmSampler(
        const QUrl& url, qint64 t0Us, int intervalMs = GpuSampler::kDefaultIntervalMs, QObject* parent = nullptr);

    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    QUrl url() const { return m_url; }
    void start();
    void stop();
    bool isActive() const { return m_timer.isActive(); }
    int failures() const { return m_failures; }

signals:
    void sampled(const ks::GpuSample& sample);
    void unavailable(const QString& reason);
    void failed(const QString& reason);

private:
    void scrape();
    void onReply(QNetworkReply* reply);
    void giveUp(const QString& reason);
    void retryLater(const QString& reason);

    QUrl m_url;
    qint64 m_t0Us;
    QTimer m_timer;
    QNetworkAccessManager* m_nam = nullptr;
    QNetworkReply* m_inFlight = nullptr;
    qint64 m_sentUs = 0;
    bool m_givenUp = false;
    int m_timeoutMs = kDefaultTimeoutMs;
    int m_consecutiveFailures = 0;
    int m_failures = 0;
};

} // namespace ks
