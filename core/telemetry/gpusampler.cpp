#include "telemetry/gpusampler.h"

#include "telemetry/hostenvironment.h"
#include "util/monotonicclock.h"

#include <QProcess>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ks {

namespace {

// The query's fields, as nvidia-smi --help-query-gpu names them, for messages.
constexpr int kFields = 5;
const char* const kFieldNames[kFields] = { "index", "utilization.gpu", "memory.used", "memory.total", "power.draw" };

// nvidia-smi's manual: "Any unsupported data is indicated by a "N/A" in the
// output"; in CSV it is bracketed, as are "[Not Supported]", "[Unknown Error]",
// "[Insufficient Permissions]" and the like. None of them is a reading.
bool notReported(const QByteArray& field)
{
    return field.isEmpty() || field == "N/A" || (field.startsWith('[') && field.endsWith(']'));
}

// The first line of a program's message, short enough for a status line.
QString firstLine(const QByteArray& text)
{
    const QByteArray trimmed = text.trimmed();
    const qsizetype newline = trimmed.indexOf('\n');
    return QString::fromLocal8Bit(newline < 0 ? trimmed.left(200) : trimmed.left(std::min<qsizetype>(newline, 200)))
        .trimmed();
}

} // namespace

// The format, from NVIDIA's nvidia-smi(1) manual page (for example
// https://manpages.ubuntu.com/manpages/noble/man1/nvidia-smi.1.html, driver
// 580): "--format= Comma separated list of format options: csv - comma
// separated values (MANDATORY); noheader - skip the first line with column
// headers; nounits - don't print units for numerical values". Each GPU is one
// line with the queried fields in order, separated by ", ". Per
// `nvidia-smi --help-query-gpu`: utilization.gpu is the percent of time over the
// past sample period (1/6 s to 1 s) during which a kernel ran; memory.used and
// memory.total are in MiB; power.draw is the last measured draw of the entire
// board in W ("Only available if power management is supported").
std::optional<std::vector<GpuReading>> parseNvidiaSmiCsv(const QByteArray& out, QString* error)
{
    std::vector<GpuReading> gpus;
    int lineNumber = 0;
    for (const QByteArray& rawLine : out.split('\n')) {
        ++lineNumber;
        const QByteArray line = rawLine.trimmed(); // also a CR from a CRLF line end
        if (line.isEmpty())
            continue;
        const auto invalid = [&](const QString& why) -> std::optional<std::vector<GpuReading>> {
            if (error)
                *error
                    = QStringLiteral("line %1 \"%2\": %3").arg(lineNumber).arg(QString::fromUtf8(line.left(120)), why);
            return std::nullopt;
        };
        const QList<QByteArray> fields = line.split(',');
        if (fields.size() != kFields)
            return invalid(QStringLiteral("%1 fields, not %2 (%3)")
                               .arg(fields.size())
                               .arg(kFields)
                               .arg(QLatin1String(kNvidiaSmiQuery)));
        GpuReading gpu;
        bool ok = false;
        gpu.index = fields[0].trimmed().toInt(&ok);
        if (!ok || gpu.index < 0)
            return invalid(
                QStringLiteral("the index \"%1\" is not a GPU index").arg(QString::fromUtf8(fields[0].trimmed())));
        std::optional<double>* const values[kFields - 1]
            = { &gpu.utilPct, &gpu.memUsedMib, &gpu.memTotalMib, &gpu.powerW };
        for (int i = 1; i < kFields; ++i) {
            const QByteArray field = fields[i].trimmed();
            if (notReported(field))
                continue;
            const double value = field.toDouble(&ok);
            if (!ok || !std::isfinite(value))
                return invalid(QStringLiteral("%1 \"%2\" is not a number")
                                   .arg(QLatin1String(kFieldNames[i]), QString::fromUtf8(field.left(40))));
            *values[i - 1] = value;
        }
        gpus.push_back(gpu);
    }
    if (error)
        error->clear();
    return gpus;
}

GpuSampler::GpuSampler(qint64 t0Us, int intervalMs, QObject* parent)
    : PeriodicSampler(t0Us,
        { .intervalMs = intervalMs,
            .timeoutMs = kDefaultTimeoutMs,
            .giveUpAfterFailures = kMaxConsecutiveFailures,
            .firstSampleFromEventLoop = true },
        parent)
    , m_program(nvidiaSmiProgram())
    , m_killTimer(this)
{
    qRegisterMetaType<GpuSample>();
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, &GpuSampler::onKillTimeout);
}

GpuSampler::~GpuSampler()
{
    cancelSample();
}

QStringList GpuSampler::arguments()
{
    return { QStringLiteral("--query-gpu=") + QLatin1String(kNvidiaSmiQuery),
        QStringLiteral("--format=csv,noheader,nounits") };
}

void GpuSampler::sampleOnce()
{
    if (m_program.isEmpty()) {
        giveUp(QStringLiteral("nvidia-smi is not on the PATH (and $KNOBSCOPE_NVIDIA_SMI is not set)"));
        return;
    }
    auto* process = new QProcess(this);
    process->setStandardInputFile(QProcess::nullDevice());
    connect(process, &QProcess::finished, this, [this, process] { onFinished(process); });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError problem) {
        // A program that cannot start never finishes: this is its only report.
        if (problem != QProcess::FailedToStart)
            return;
        process->deleteLater();
        if (process != m_inFlight)
            return;
        m_inFlight = nullptr;
        giveUp(QStringLiteral("cannot run %1: %2").arg(m_program, process->errorString()));
    });
    m_inFlight = process;
    m_timedOut = false;
    m_startedUs = monotonicUs(); // the sample's time: nvidia-smi reads the GPUs right after it starts
    m_killTimer.start(timeoutMs());
    process->start(m_program, arguments());
}

void GpuSampler::onFinished(QProcess* process)
{
    process->deleteLater();
    if (process != m_inFlight)
        return; // dropped by stop() or a give-up
    m_inFlight = nullptr;
    m_killTimer.stop();
    if (m_timedOut)
        return; // reported when it was killed
    const QByteArray out = process->readAllStandardOutput();
    if (process->exitStatus() != QProcess::NormalExit) {
        sampleFailed(QStringLiteral("%1 crashed").arg(m_program));
        return;
    }
    if (process->exitCode() != 0) {
        // nvidia-smi prints its own failures ("couldn't communicate with the
        // NVIDIA driver") on stdout; a stand-in may use stderr.
        const QByteArray err = process->readAllStandardError();
        sampleFailed(
            QStringLiteral("%1 exited with status %2: %3")
                .arg(m_program, QString::number(process->exitCode()), firstLine(err.trimmed().isEmpty() ? out : err)));
        return;
    }
    QString error;
    std::optional<std::vector<GpuReading>> gpus = parseNvidiaSmiCsv(out, &error);
    if (!gpus) {
        giveUp(QStringLiteral("%1 printed something other than the CSV asked for: %2").arg(m_program, error));
        return;
    }
    if (gpus->empty()) {
        giveUp(QStringLiteral("%1 lists no GPU").arg(m_program));
        return;
    }
    sampleSucceeded();
    GpuSample sample;
    sample.tUs = m_startedUs - t0Us();
    sample.gpus = std::move(*gpus);
    emit sampled(sample);
}

void GpuSampler::onKillTimeout()
{
    if (!m_inFlight)
        return;
    m_timedOut = true;
    m_inFlight->kill();
    // Reported now, not when it dies: a process stuck in the driver may not
    // die soon, and until it does no other run starts.
    sampleFailed(QStringLiteral("%1 gave no answer within %2 ms; killed").arg(m_program, QString::number(timeoutMs())));
}

void GpuSampler::cancelSample()
{
    m_killTimer.stop();
    QProcess* process = std::exchange(m_inFlight, nullptr);
    if (!process)
        return;
    disconnect(process, nullptr, this, nullptr);
    if (process->state() == QProcess::NotRunning) {
        process->deleteLater();
        return;
    }
    // Killed and left to delete itself once it has ended: deleting a running
    // QProcess, as this sampler's child would be at its destruction, blocks
    // until the process is reaped.
    process->setParent(nullptr);
    connect(process, &QProcess::finished, process, &QObject::deleteLater);
    process->kill();
}

} // namespace ks
