#include "telemetry/gputelemetry.h"

#include "telemetry/dcgmsampler.h"
#include "telemetry/gpusampler.h"

#include <algorithm>

namespace ks {

namespace {

nlohmann::json valueOrNull(const std::optional<double>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json valueOrNull(double v)
{
    return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
}

// Adds one GPU's reading into the totals: utilization averages, the rest sums.
struct GaugeTotals {
    int gpus = 0, util = 0;
    double utilSum = 0, memUsed = -1, memTotal = -1, power = -1;

    void add(const std::optional<double>& utilPct, const std::optional<double>& memUsedMib,
        const std::optional<double>& memTotalMib, const std::optional<double>& powerW)
    {
        ++gpus;
        if (utilPct) {
            utilSum += *utilPct;
            ++util;
        }
        auto sum = [](double& into, const std::optional<double>& v) {
            if (v)
                into = std::max(into, 0.0) + *v;
        };
        sum(memUsed, memUsedMib);
        sum(memTotal, memTotalMib);
        sum(power, powerW);
    }
    GpuGauges gauges() const { return { gpus, util > 0 ? utilSum / util : -1, memUsed, memTotal, power }; }
};

std::optional<double> numberAt(const nlohmann::json& gpu, const char* key)
{
    const auto it = gpu.find(key);
    if (it == gpu.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

} // namespace

nlohmann::json gpuLine(const QString& run, const GpuSample& sample)
{
    nlohmann::json gpus = nlohmann::json::array();
    for (const GpuReading& g : sample.gpus)
        gpus.push_back({ { "index", g.index }, { "util_pct", valueOrNull(g.utilPct) },
            { "mem_used_mib", valueOrNull(g.memUsedMib) }, { "mem_total_mib", valueOrNull(g.memTotalMib) },
            { "power_w", valueOrNull(g.powerW) } });
    return { { "type", "gpu" }, { "run", run.toStdString() }, { "t_us", sample.tUs }, { "gpus", std::move(gpus) } };
}

GpuGauges gpuGaugesOf(const nlohmann::json& gpus)
{
    GaugeTotals totals;
    if (!gpus.is_array())
        return {};
    for (const nlohmann::json& g : gpus)
        if (g.is_object())
            totals.add(numberAt(g, "util_pct"), numberAt(g, "mem_used_mib"), numberAt(g, "mem_total_mib"),
                numberAt(g, "power_w"));
    return totals.gauges();
}

GpuGauges gpuGaugesOfSample(const GpuSample& sample)
{
    GaugeTotals totals;
    for (const GpuReading& g : sample.gpus)
        totals.add(g.utilPct, g.memUsedMib, g.memTotalMib, g.powerW);
    return totals.gauges();
}

GpuTelemetry::GpuTelemetry(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<GpuSample>();
    qRegisterMetaType<GpuGauges>();
}

GpuTelemetry::~GpuTelemetry() = default;

void GpuTelemetry::start(qint64 t0Us)
{
    stop();
    (void)takeSummary();
    m_problemTold = false;
    if (m_unavailable)
        return;
    // nvidia-smi on this host, or a DCGM exporter (the usual way on
    // Kubernetes) when $KNOBSCOPE_DCGM_URL names one: the same samples.
    if (const QByteArray dcgm = qgetenv("KNOBSCOPE_DCGM_URL"); !dcgm.isEmpty()) {
        auto sampler = std::make_unique<DcgmSampler>(QUrl(QString::fromUtf8(dcgm)), t0Us);
        connect(sampler.get(), &DcgmSampler::sampled, this, &GpuTelemetry::onSample);
        m_sampler = std::move(sampler);
    } else {
        auto sampler = std::make_unique<GpuSampler>(t0Us);
        connect(sampler.get(), &GpuSampler::sampled, this, &GpuTelemetry::onSample);
        m_sampler = std::move(sampler);
    }
    connect(m_sampler.get(), &PeriodicSampler::unavailable, this, [this](const QString& reason) {
        m_unavailable = true; // not asked again in this experiment
        if (m_samples > 0 || m_sampler->failures() > 0) // it had worked, or tried: not merely absent
            emit problem(QStringLiteral("GPU sampling stopped: %1").arg(reason));
    });
    connect(m_sampler.get(), &PeriodicSampler::failed, this, [this](const QString& reason) {
        if (!m_problemTold) // once per arm: the sampler retries on its own
            emit problem(QStringLiteral("GPU sampling failed: %1; retrying").arg(reason));
        m_problemTold = true;
    });
    m_sampler->start();
}

void GpuTelemetry::stop()
{
    if (m_sampler)
        m_sampler->stop();
    m_sampler.reset();
}

void GpuTelemetry::onSample(const GpuSample& sample)
{
    const GpuGauges g = gpuGaugesOfSample(sample);
    ++m_samples;
    m_gpus = std::max(m_gpus, g.count);
    if (g.utilPct >= 0) {
        m_utilSum += g.utilPct;
        ++m_utilSamples;
        m_utilMax = std::max(m_utilMax, g.utilPct);
    }
    if (g.powerW >= 0) {
        m_powerSum += g.powerW;
        ++m_powerSamples;
        m_powerMax = std::max(m_powerMax, g.powerW);
    }
    m_memUsedMax = std::max(m_memUsedMax, g.memUsedMib);
    m_memTotal = std::max(m_memTotal, g.memTotalMib);
    emit sampled(sample, g);
}

nlohmann::json GpuTelemetry::takeSummary()
{
    if (m_samples == 0)
        return nullptr;
    nlohmann::json summary = { { "samples", m_samples }, { "gpus", m_gpus },
        { "util_pct_mean", valueOrNull(m_utilSamples > 0 ? m_utilSum / m_utilSamples : -1.0) },
        { "util_pct_max", valueOrNull(m_utilMax) }, { "mem_used_mib_max", valueOrNull(m_memUsedMax) },
        { "mem_total_mib", valueOrNull(m_memTotal) },
        { "power_w_mean", valueOrNull(m_powerSamples > 0 ? m_powerSum / m_powerSamples : -1.0) },
        { "power_w_max", valueOrNull(m_powerMax) } };
    m_samples = m_gpus = m_utilSamples = m_powerSamples = 0;
    m_utilSum = m_powerSum = 0;
    m_utilMax = m_powerMax = m_memUsedMax = m_memTotal = -1;
    return summary;
}

} // namespace ks
