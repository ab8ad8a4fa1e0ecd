#pragma once

#include "metrics/aggregator.h"

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <memory>

namespace ks {

class PeriodicSampler;
struct GpuSample;

/// A `gpu` line of the run file (docs/formats.md) for one sample.
nlohmann::json gpuLine(const QString& run, const GpuSample& sample);
/// The gauges of a `gpu` line's `gpus` array, as live snapshots show them:
/// tolerant of missing or wrong-typed fields (those count as not reported).
GpuGauges gpuGaugesOf(const nlohmann::json& gpus);
GpuGauges gpuGaugesOfSample(const GpuSample& sample);

/// The GPUs during one arm: samples nvidia-smi while the arm runs (when it is
/// there, or $KNOBSCOPE_NVIDIA_SMI names a stand-in), or a DCGM exporter when
/// $KNOBSCOPE_DCGM_URL names one, and sums them up for the arm's summary. A
/// machine without either is asked once per experiment.
class GpuTelemetry : public QObject {
    Q_OBJECT
public:
    explicit GpuTelemetry(QObject* parent = nullptr);
    ~GpuTelemetry() override;

    /// A new arm whose clock started at `t0Us` (monotonic): the summary starts empty.
    void start(qint64 t0Us);
    void stop();
    /// The `gpu` summary object since start() or the last take, or null
    /// without samples; sampling goes on, the next summary starts empty.
    nlohmann::json takeSummary();

signals:
    void sampled(const ks::GpuSample& sample, const ks::GpuGauges& gauges);
    /// Sampling failed in a way worth telling (not: no nvidia-smi on this machine).
    void problem(const QString& message);

private:
    void onSample(const GpuSample& sample);

    std::unique_ptr<PeriodicSampler> m_sampler; ///< a GpuSampler or a DcgmSampler
    bool m_unavailable = false;
    bool m_problemTold = false;
    int m_samples = 0;
    int m_gpus = 0;
    int m_utilSamples = 0, m_powerSamples = 0;
    double m_utilSum = 0, m_utilMax = -1;
    double m_powerSum = 0, m_powerMax = -1;
    double m_memUsedMax = -1, m_memTotal = -1;
};

} // namespace ks
