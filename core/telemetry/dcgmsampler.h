#pragma once

#include "telemetry/gpusampler.h"
#include "telemetry/periodicsampler.h"
#include "telemetry/prometheustext.h"

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
class DcgmSampler : public PeriodicSampler {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 2000;

    /// `url`: the exporter's metrics URL; a URL without a path gets "/metrics".
    DcgmSampler(
        const QUrl& url, qint64 t0Us, int intervalMs = GpuSampler::kDefaultIntervalMs, QObject* parent = nullptr);

    QUrl url() const { return m_url; }

signals:
    void sampled(const ks::GpuSample& sample);

private:
    void sampleOnce() override;
    bool sampleInFlight() const override { return m_inFlight != nullptr; }
    void cancelSample() override;
    QString source() const override { return m_url.toString(); }
    void onReply(QNetworkReply* reply);

    QUrl m_url;
    QNetworkAccessManager* m_nam = nullptr;
    QNetworkReply* m_inFlight = nullptr;
    qint64 m_sentUs = 0;
};

} // namespace ks
