#include "telemetry/hostenvironment.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using json = nlohmann::json;

namespace {

// A stand-in for nvidia-smi that prints `output` and exits with `status`.
QString standIn(const QTemporaryDir& dir, const QByteArray& output, int status)
{
    const QString path = dir.filePath(QStringLiteral("nvidia-smi"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\nprintf '" + output + "'\nexit " + QByteArray::number(status) + "\n");
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class TestHostEnvironment : public QObject {
    Q_OBJECT
private slots:
    void parsesNvidiaSmi()
    {
        const json gpus = parseNvidiaSmiGpus("NVIDIA H200, 550.54.15, 143771\n"
                                             "NVIDIA GeForce RTX 4090, 550.54.15, 24564\n"
                                             "garbage line\n"
                                             ", 1, 2\n");
        QCOMPARE(gpus.size(), std::size_t(2));
        QCOMPARE(gpus[0]["name"].get<std::string>(), std::string("NVIDIA H200"));
        QCOMPARE(gpus[0]["driver"].get<std::string>(), std::string("550.54.15"));
        QCOMPARE(gpus[0]["memory_mib"].get<double>(), 143771.0);
        QCOMPARE(gpus[1]["name"].get<std::string>(), std::string("NVIDIA GeForce RTX 4090"));
        QVERIFY(parseNvidiaSmiGpus("").empty());
    }

    void recordsThisHost()
    {
        QTemporaryDir dir;
        qputenv("KNOBSCOPE_NVIDIA_SMI", standIn(dir, "NVIDIA H200, 550.54.15, 143771\\n", 0).toLocal8Bit());
        const json env = hostEnvironment();
        QVERIFY(env["cpu_count"].get<int>() >= 1);
        QVERIFY(env["memory_bytes"].get<long long>() > 0); // read from /proc/meminfo, which has size 0
        QVERIFY(!env["os"].get<std::string>().empty());
        QCOMPARE(env["knobscope"].get<std::string>(), std::string(KNOBSCOPE_VERSION));
        QCOMPARE(env["gpus"].size(), std::size_t(1));
        QCOMPARE(env["gpus"][0]["name"].get<std::string>(), std::string("NVIDIA H200"));
        QVERIFY(environmentText(env).contains(QStringLiteral("NVIDIA H200 (driver 550.54.15)")));

        qputenv("KNOBSCOPE_NVIDIA_SMI", standIn(dir, "NVIDIA-SMI has failed", 9).toLocal8Bit());
        const json failed = hostEnvironment();
        QVERIFY(!failed.contains("gpus"));
        QVERIFY(QString::fromStdString(failed["gpu_error"].get<std::string>()).contains(QStringLiteral("failed")));
        qunsetenv("KNOBSCOPE_NVIDIA_SMI");
    }

    void namesWhatDiffers()
    {
        const json a
            = { { "host", "a" }, { "cpu_model", "AMD EPYC" }, { "cpu_count", 16 }, { "memory_bytes", 64LL << 30 },
                  { "knobscope", "0.1.0" }, { "gpus", { { { "name", "NVIDIA H200" }, { "driver", "550.54.15" } } } } };
        json b = a;
        b["host"] = "b"; // another host of the same kind is not a difference
        b["memory_bytes"] = (64LL << 30) - (40LL << 20); // a few MiB between boots
        QVERIFY(environmentDifferences(a, b).isEmpty());
        b["gpus"][0]["driver"] = "560.28.03";
        b["cpu_count"] = 8;
        const QStringList differences = environmentDifferences(a, b);
        QCOMPARE(differences.size(), 2);
        QVERIFY(differences.join(QLatin1Char(';')).contains(QStringLiteral("CPU count 16 vs 8")));
        QVERIFY(differences.join(QLatin1Char(';')).contains(QStringLiteral("560.28.03")));
        QVERIFY(environmentDifferences(a, json()).isEmpty()); // a file from before environments: nothing to say
    }
};

QTEST_GUILESS_MAIN(TestHostEnvironment)
#include "tst_hostenvironment.moc"
