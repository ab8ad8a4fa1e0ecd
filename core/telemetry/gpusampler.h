#pragma once

#include "telemetry/periodicsampler.h"

#include <QByteArray>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <optional>
#include <vector>

class QProcess;

namespace ks {

/// One GPU's telemetry at one moment. A field the driver does not report for
/// this board ("[N/A]", "[Not Supported]") is left empty.
struct GpuReading {
    int index = 0; ///< nvidia-smi's 0-based index
    std::optional<double> utilPct; ///< utilization.gpu: % of the last sample period a kernel ran
    std::optional<double> memUsedMib; ///< memory.used
    std::optional<double> memTotalMib; ///< memory.total
    std::optional<double> powerW; ///< power.draw: the whole board
};

/// Every GPU's reading from one nvidia-smi run, taken at `tUs` after the run's
/// t0 (when the process was started, on ks::monotonicUs()).
struct GpuSample {
    qint64 tUs = 0;
    std::vector<GpuReading> gpus;
};

/// The fields GpuSampler asks nvidia-smi for, in the order parseNvidiaSmiCsv() reads them.
inline constexpr const char* kNvidiaSmiQuery = "index,utilization.gpu,memory.used,memory.total,power.draw";

/// Parses `nvidia-smi --query-gpu=<kNvidiaSmiQuery> --format=csv,noheader,nounits`:
/// one line per GPU, five comma-separated fields. A bracketed placeholder
/// ("[N/A]", "[Not Supported]", "[Unknown Error]"), a bare "N/A" or an empty
/// field becomes an empty optional; blank lines are skipped. A line with
/// another number of fields, an index that is not an integer or a value that is
/// not a finite number makes the whole output invalid: nullopt, with `error`
/// naming the line.
std::optional<std::vector<GpuReading>> parseNvidiaSmiCsv(const QByteArray& out, QString* error);

/// Samples GPU utilization, memory and power by running nvidia-smi on a fixed
/// interval, asynchronously (QProcess, never a wait on this thread), one run
/// at a time: a run still going when the next is due is not doubled. A run
/// that takes longer than the time limit is killed and reported through
/// failed(), as is one that exits with an error; the next one is tried at the
/// next interval. No nvidia-smi to run, one that cannot start, output that is
/// not the documented CSV, or kMaxConsecutiveFailures failed runs in a row are
/// reported once through unavailable(), after which the sampler stops; no
/// signal comes from inside start(). Lives in the thread that starts it.
class GpuSampler : public PeriodicSampler {
    Q_OBJECT
public:
    /// nvidia-smi takes tens to hundreds of milliseconds a call: once a second
    /// is as often as it is worth asking.
    static constexpr int kDefaultIntervalMs = 1000;
    /// A wedged driver can hold nvidia-smi for seconds or forever.
    static constexpr int kDefaultTimeoutMs = 3000;
    static constexpr int kMaxConsecutiveFailures = 10;

    /// `t0Us` is the run's t0 on ks::monotonicUs(). The program is
    /// nvidiaSmiProgram() ($KNOBSCOPE_NVIDIA_SMI or nvidia-smi on PATH) unless
    /// setProgram() names another.
    explicit GpuSampler(qint64 t0Us, int intervalMs = kDefaultIntervalMs, QObject* parent = nullptr);
    ~GpuSampler() override;

    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }
    /// The arguments nvidia-smi is run with.
    static QStringList arguments();

signals:
    void sampled(const ks::GpuSample& sample);

private:
    void sampleOnce() override;
    bool sampleInFlight() const override { return m_inFlight != nullptr; }
    /// A run in flight is killed and its result dropped.
    void cancelSample() override;
    QString source() const override { return m_program; }
    void onFinished(QProcess* process);
    void onKillTimeout();

    QString m_program;
    QTimer m_killTimer;
    QProcess* m_inFlight = nullptr;
    qint64 m_startedUs = 0; ///< monotonic; when m_inFlight was started
    bool m_timedOut = false;
};

} // namespace ks

Q_DECLARE_METATYPE(ks::GpuSample)
