#include "telemetry/hostenvironment.h"

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QSysInfo>
#include <QThread>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

using json = nlohmann::json;

// The value of the first "key : value" line of a /proc file that starts with `key`.
QByteArray procField(const char* path, const QByteArray& key)
{
    QFile file(QString::fromLatin1(path));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    // /proc files report size 0, so QFile::atEnd() holds at once: read them whole.
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.startsWith(key)) {
            const qsizetype colon = line.indexOf(':');
            return colon < 0 ? QByteArray() : line.mid(colon + 1).trimmed();
        }
    }
    return {};
}

std::string stringAt(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

QString gpuList(const json& environment)
{
    QStringList names;
    const auto it = environment.find("gpus");
    if (it == environment.end() || !it->is_array())
        return {};
    for (const json& gpu : *it)
        if (gpu.is_object())
            names << QStringLiteral("%1 (driver %2)")
                         .arg(QString::fromStdString(stringAt(gpu, "name")),
                             QString::fromStdString(stringAt(gpu, "driver")));
    return names.join(QStringLiteral(", "));
}

} // namespace

QString nvidiaSmiProgram()
{
    const QString given = QProcessEnvironment::systemEnvironment().value(QStringLiteral("KNOBSCOPE_NVIDIA_SMI"));
    return given.isEmpty() ? QStandardPaths::findExecutable(QStringLiteral("nvidia-smi")) : given;
}

nlohmann::json parseNvidiaSmiGpus(const QByteArray& csv)
{
    json gpus = json::array();
    for (const QByteArray& line : csv.split('\n')) {
        const QList<QByteArray> fields = line.split(',');
        if (fields.size() != 3)
            continue;
        bool ok = false;
        const double memory = fields[2].trimmed().toDouble(&ok);
        const QByteArray name = fields[0].trimmed();
        if (name.isEmpty())
            continue;
        json gpu = { { "name", name.toStdString() }, { "driver", fields[1].trimmed().toStdString() } };
        if (ok)
            gpu["memory_mib"] = memory;
        gpus.push_back(std::move(gpu));
    }
    return gpus;
}

nlohmann::json hostEnvironment()
{
    json env = { { "host", QSysInfo::machineHostName().toStdString() },
        { "os", QSysInfo::prettyProductName().toStdString() },
        { "kernel", (QSysInfo::kernelType() + QLatin1Char(' ') + QSysInfo::kernelVersion()).toStdString() },
        { "cpu_count", QThread::idealThreadCount() }, { "knobscope", KNOBSCOPE_VERSION } };
    if (const QByteArray model = procField("/proc/cpuinfo", "model name"); !model.isEmpty())
        env["cpu_model"] = model.toStdString();
    if (const QByteArray memory = procField("/proc/meminfo", "MemTotal"); !memory.isEmpty())
        env["memory_bytes"] = memory.split(' ').value(0).toLongLong() * 1024; // "65536000 kB"
    if (const QString smi = nvidiaSmiProgram(); !smi.isEmpty()) {
        QProcess process;
        process.start(smi,
            { QStringLiteral("--query-gpu=name,driver_version,memory.total"),
                QStringLiteral("--format=csv,noheader,nounits") });
        constexpr int kSmiTimeoutMs = 3000; // a wedged driver must not hold up the run
        if (!process.waitForFinished(kSmiTimeoutMs)) {
            process.kill();
            process.waitForFinished();
            env["gpu_error"] = "nvidia-smi did not answer within 3 s";
        } else if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
            env["gpu_error"]
                = ("nvidia-smi failed: " + process.readAllStandardError().trimmed().left(200)).toStdString();
        } else {
            env["gpus"] = parseNvidiaSmiGpus(process.readAllStandardOutput());
        }
    }
    return env;
}

QStringList environmentDifferences(const nlohmann::json& a, const nlohmann::json& b)
{
    QStringList out;
    if (!a.is_object() || !b.is_object() || a.empty() || b.empty())
        return out;
    const auto differs = [&](const char* key, const char* what) {
        const auto ia = a.find(key);
        const auto ib = b.find(key);
        if (ia == a.end() || ib == b.end() || *ia == *ib)
            return;
        out << QStringLiteral("%1 %2 vs %3")
                   .arg(QLatin1String(what), QString::fromStdString(ia->dump()), QString::fromStdString(ib->dump()));
    };
    differs("cpu_model", "CPU");
    differs("cpu_count", "CPU count");
    differs("os", "OS");
    differs("knobscope", "knobscope");
    // Memory as the kernel reports it moves by a few MiB between boots: only a real difference counts.
    const auto ma = a.find("memory_bytes");
    const auto mb = b.find("memory_bytes");
    if (ma != a.end() && mb != b.end() && ma->is_number() && mb->is_number()) {
        const double x = ma->get<double>();
        const double y = mb->get<double>();
        if (std::abs(x - y) > 0.02 * std::max(x, y))
            out << QStringLiteral("memory %1 vs %2 GiB")
                       .arg(x / double(1 << 30), 0, 'f', 1)
                       .arg(y / double(1 << 30), 0, 'f', 1);
    }
    if (const QString ga = gpuList(a), gb = gpuList(b); ga != gb)
        out << QStringLiteral("GPUs \"%1\" vs \"%2\"")
                   .arg(ga.isEmpty() ? QStringLiteral("none") : ga, gb.isEmpty() ? QStringLiteral("none") : gb);
    return out;
}

QString environmentText(const nlohmann::json& environment)
{
    if (!environment.is_object() || environment.empty())
        return {};
    QStringList parts;
    if (const std::string host = stringAt(environment, "host"); !host.empty())
        parts << QString::fromStdString(host);
    if (const std::string cpu = stringAt(environment, "cpu_model"); !cpu.empty())
        parts << QString::fromStdString(cpu)
                + (environment.value("cpu_count", json()).is_number_integer()
                        ? QStringLiteral(" × %1").arg(environment["cpu_count"].get<int>())
                        : QString());
    if (const auto memory = environment.find("memory_bytes"); memory != environment.end() && memory->is_number())
        parts << QStringLiteral("%1 GiB").arg(memory->get<double>() / double(1 << 30), 0, 'f', 0);
    const QString gpus = gpuList(environment);
    parts << (gpus.isEmpty() ? QStringLiteral("no GPU seen") : gpus);
    if (const std::string os = stringAt(environment, "os"); !os.empty())
        parts << QString::fromStdString(os);
    if (const std::string version = stringAt(environment, "knobscope"); !version.empty())
        parts << QStringLiteral("knobscope ") + QString::fromStdString(version);
    return parts.join(QStringLiteral(" · "));
}

} // namespace ks
