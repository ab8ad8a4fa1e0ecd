#include "telemetry/dcgmsampler.h"

#include "client/requestfactory.h"
#include "util/monotonicclock.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <cmath>
#include <map>
#include <utility>

namespace ks {

namespace {

// DCGM writes a "blank" when it has no reading (dcgm_structs.h: DCGM_INT32_BLANK
// 0x7ffffff0, DCGM_INT64_BLANK 0x7ffffffffffffff0, DCGM_FP64_BLANK 2^47, plus
// small offsets for not found, not supported, not permitted); the exporter
// prints the number as it is. No utilization, MiB count or wattage comes near
// the smallest of them.
constexpr double kSmallestBlank = 0x7ffffff0;

QString label(const PromSample& sample, QLatin1String name)
{
    for (const auto& [key, value] : sample.labels)
        if (key == name)
            return value;
    return {};
}

} // namespace

// The metrics and their units, from the exporter's shipped collector list
// (github.com/NVIDIA/dcgm-exporter etc/default-counters.csv): DCGM_FI_DEV_GPU_UTIL
// "GPU utilization (in %)", DCGM_FI_DEV_FB_FREE / DCGM_FI_DEV_FB_USED "Framebuffer
// memory free / used (in MiB)", DCGM_FI_DEV_POWER_USAGE "Power draw (in W)";
// each series carries gpu="<index>" and UUID labels.
std::vector<GpuReading> gpuReadingsFromDcgm(const std::vector<PromSample>& samples)
{
    struct Memory {
        std::optional<double> used, free, reserved;
    };
    std::map<int, GpuReading> gpus;
    std::map<int, Memory> memory;
    for (const PromSample& sample : samples) {
        if (!sample.name.startsWith(QLatin1String("DCGM_FI_DEV_")) || !std::isfinite(sample.value)
            || sample.value >= kSmallestBlank || !label(sample, QLatin1String("GPU_I_ID")).isEmpty())
            continue;
        bool ok = false;
        const int index = label(sample, QLatin1String("gpu")).toInt(&ok);
        if (!ok || index < 0)
            continue;
        std::optional<double>* field = nullptr;
        if (sample.name == QLatin1String("DCGM_FI_DEV_GPU_UTIL"))
            field = &gpus[index].utilPct;
        else if (sample.name == QLatin1String("DCGM_FI_DEV_POWER_USAGE"))
            field = &gpus[index].powerW;
        else if (sample.name == QLatin1String("DCGM_FI_DEV_FB_USED"))
            field = &memory[index].used;
        else if (sample.name == QLatin1String("DCGM_FI_DEV_FB_FREE"))
            field = &memory[index].free;
        else if (sample.name == QLatin1String("DCGM_FI_DEV_FB_RESERVED"))
            field = &memory[index].reserved;
        if (field && !*field) // a series repeated with other labels (pod, container) says the same
            *field = sample.value;
    }
    for (const auto& [index, mem] : memory) {
        if (!mem.used && !mem.free)
            continue;
        GpuReading& gpu = gpus[index];
        gpu.memUsedMib = mem.used;
        if (mem.used && mem.free)
            gpu.memTotalMib = *mem.used + *mem.free + mem.reserved.value_or(0);
    }
    std::vector<GpuReading> out;
    for (auto& [index, gpu] : gpus) {
        gpu.index = index;
        out.push_back(gpu);
    }
    return out;
}

DcgmSampler::DcgmSampler(const QUrl& url, qint64 t0Us, int intervalMs, QObject* parent)
    : PeriodicSampler(t0Us,
        { .intervalMs = intervalMs,
            .timeoutMs = kDefaultTimeoutMs,
            .giveUpAfterFailures = GpuSampler::kMaxConsecutiveFailures },
        parent)
    , m_url(url)
{
    qRegisterMetaType<GpuSample>();
    if (m_url.path().isEmpty() || m_url.path() == QLatin1String("/"))
        m_url.setPath(QStringLiteral("/metrics"));
}

void DcgmSampler::cancelSample()
{
    if (QNetworkReply* reply = std::exchange(m_inFlight, nullptr)) {
        // Left to end within its time limit: aborting a request whose answer
        // is already on its way from Qt's HTTP thread makes Qt 6.4 warn.
        disconnect(reply, nullptr, this, nullptr);
        connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
    }
}

void DcgmSampler::sampleOnce()
{
    if (!m_nam)
        m_nam = new QNetworkAccessManager(this);
    QNetworkRequest request(m_url);
    request.setRawHeader("User-Agent", RequestFactory::userAgent());
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setTransferTimeout(timeoutMs());
    m_sentUs = monotonicUs();
    m_inFlight = m_nam->get(request);
    connect(m_inFlight, &QNetworkReply::finished, this, [this, reply = m_inFlight] { onReply(reply); });
}

void DcgmSampler::onReply(QNetworkReply* reply)
{
    reply->deleteLater();
    if (reply != m_inFlight)
        return;
    m_inFlight = nullptr;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString url = m_url.toString();
    if (status >= 400 && status < 500) {
        giveUp(QStringLiteral("GET %1 answered HTTP %2").arg(url, QString::number(status)));
        return;
    }
    if (status != 200 || reply->error() != QNetworkReply::NoError) {
        const bool timedOut
            = reply->error() == QNetworkReply::OperationCanceledError || reply->error() == QNetworkReply::TimeoutError;
        sampleFailed(status ? QStringLiteral("GET %1 answered HTTP %2").arg(url, QString::number(status))
                : timedOut ? QStringLiteral("GET %1 gave no answer within %2 ms").arg(url, QString::number(timeoutMs()))
                           : QStringLiteral("GET %1 failed: %2").arg(url, reply->errorString()));
        return;
    }
    std::vector<GpuReading> gpus = gpuReadingsFromDcgm(parsePrometheusText(reply->readAll()).samples);
    if (gpus.empty()) {
        giveUp(QStringLiteral("%1 has no DCGM GPU metrics (DCGM_FI_DEV_GPU_UTIL, _FB_USED, _POWER_USAGE)").arg(url));
        return;
    }
    sampleSucceeded();
    GpuSample sample;
    sample.tUs = m_sentUs - t0Us();
    sample.gpus = std::move(gpus);
    emit sampled(sample);
}

} // namespace ks
