// The nvidia-smi CSV parser on the documented output, and the GPU sampler
// against stand-in scripts: samples with their values and start times, a run
// that fails, a program that is missing, one that hangs past the time limit.
#include "telemetry/gpusampler.h"
#include "util/monotonicclock.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <sys/types.h>

using namespace ks;

namespace {

// Writes an executable shell script `name` into `dir` with `body` after the #! line.
QString script(const QTemporaryDir& dir, const QString& name, const QByteArray& body)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("#!/bin/sh\n" + body);
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

// Two GPUs as nvidia-smi prints them for kNvidiaSmiQuery with csv,noheader,nounits.
const QByteArray kTwoGpus = "0, 87, 70123, 81559, 412.37\n"
                            "1, 3, 1024, 81559, 71.02\n";

std::optional<double> none()
{
    return std::nullopt;
}

} // namespace

class TestGpuSampler : public QObject {
    Q_OBJECT
private slots:
    void parsesOneGpu()
    {
        QString error = QStringLiteral("stale");
        const auto gpus = parseNvidiaSmiCsv("0, 45, 1234, 24564, 120.50\n", &error);
        QVERIFY(gpus);
        QVERIFY(error.isEmpty());
        QCOMPARE(gpus->size(), std::size_t(1));
        const GpuReading& gpu = gpus->front();
        QCOMPARE(gpu.index, 0);
        QCOMPARE(gpu.utilPct, std::optional<double>(45));
        QCOMPARE(gpu.memUsedMib, std::optional<double>(1234));
        QCOMPARE(gpu.memTotalMib, std::optional<double>(24564));
        QCOMPARE(gpu.powerW, std::optional<double>(120.5));
    }

    void parsesTwoGpusWithCrlfAndBlankLines()
    {
        QString error;
        const auto gpus
            = parseNvidiaSmiCsv("\r\n0, 87, 70123, 81559, 412.37\r\n\r\n1, 3, 1024, 81559, 71.02\r\n", &error);
        QVERIFY2(gpus, qPrintable(error));
        QCOMPARE(gpus->size(), std::size_t(2));
        QCOMPARE((*gpus)[0].powerW, std::optional<double>(412.37));
        QCOMPARE((*gpus)[1].index, 1);
        QCOMPARE((*gpus)[1].utilPct, std::optional<double>(3));
        QCOMPARE((*gpus)[1].memUsedMib, std::optional<double>(1024));
    }

    // What boards without power management, MIG instances or WSL print: the
    // field is absent, the rest of the line still counts.
    void unreportedFieldsAreEmpty_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<std::optional<double>>("util");
        QTest::addColumn<std::optional<double>>("power");
        QTest::newRow("[N/A] power") << QByteArray("0, 12, 100, 200, [N/A]") << std::optional<double>(12) << none();
        QTest::newRow("[Not Supported] utilization")
            << QByteArray("0, [Not Supported], 100, 200, 55.5") << none() << std::optional<double>(55.5);
        QTest::newRow("both unsupported") << QByteArray("0, [N/A], 100, 200, [Not Supported]") << none() << none();
        QTest::newRow("bare N/A and empty") << QByteArray("0, N/A, 100, 200, ") << none() << none();
        QTest::newRow("[Unknown Error]") << QByteArray("0, 7, 100, 200, [Unknown Error]") << std::optional<double>(7)
                                         << none();
    }
    void unreportedFieldsAreEmpty()
    {
        QFETCH(QByteArray, line);
        QFETCH(std::optional<double>, util);
        QFETCH(std::optional<double>, power);
        QString error;
        const auto gpus = parseNvidiaSmiCsv(line + '\n', &error);
        QVERIFY2(gpus, qPrintable(error));
        QCOMPARE(gpus->size(), std::size_t(1));
        QCOMPARE(gpus->front().utilPct, util);
        QCOMPARE(gpus->front().powerW, power);
        QCOMPARE(gpus->front().memUsedMib, std::optional<double>(100));
        QCOMPARE(gpus->front().memTotalMib, std::optional<double>(200));
    }

    void badLinesAreErrorsNamingTheLine_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QString>("expected");
        QTest::newRow("too few fields") << QByteArray("0, 1, 2, 3, 4\n1, 2, 3\n")
                                        << QStringLiteral("line 2 \"1, 2, 3\"");
        QTest::newRow("too many fields") << QByteArray("0, 1, 2, 3, 4, 5\n") << QStringLiteral("6 fields, not 5");
        QTest::newRow("not a number") << QByteArray("0, 1, lots, 3, 4\n") << QStringLiteral("memory.used \"lots\"");
        QTest::newRow("units left in") << QByteArray("0, 45 %, 1 MiB, 2 MiB, 3 W\n")
                                       << QStringLiteral("utilization.gpu \"45 %\"");
        QTest::newRow("bad index") << QByteArray("GPU-0, 1, 2, 3, 4\n") << QStringLiteral("index \"GPU-0\"");
        QTest::newRow("not finite") << QByteArray("0, nan, 2, 3, 4\n") << QStringLiteral("utilization.gpu \"nan\"");
        QTest::newRow("a message, not CSV") << QByteArray("No devices were found\n") << QStringLiteral("line 1");
    }
    void badLinesAreErrorsNamingTheLine()
    {
        QFETCH(QByteArray, output);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!parseNvidiaSmiCsv(output, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void noOutputIsNoGpu()
    {
        QString error;
        const auto gpus = parseNvidiaSmiCsv("\n", &error);
        QVERIFY(gpus);
        QVERIFY(gpus->empty());
    }

    void argumentsAskForTheParsedFields()
    {
        QCOMPARE(GpuSampler::arguments(),
            QStringList({ QStringLiteral("--query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw"),
                QStringLiteral("--format=csv,noheader,nounits") }));
    }

    // Each sample carries the stand-in's values and the time its run started:
    // the stand-in sleeps 0.2 s before it prints, so a sample stamped when the
    // output arrived would be at least 0.2 s later than its start.
    void samplesArriveWithValuesAndRisingStartTimes()
    {
        QTemporaryDir dir;
        const QString standIn = script(dir, QStringLiteral("nvidia-smi"),
            "sleep 0.2\nprintf '" + QByteArray(kTwoGpus).replace("\n", "\\n") + "'\n");
        const qint64 t0 = monotonicUs();
        GpuSampler sampler(t0, 20);
        sampler.setProgram(standIn);
        QSignalSpy sampled(&sampler, &GpuSampler::sampled);
        QSignalSpy failed(&sampler, &GpuSampler::failed);
        QSignalSpy unavailable(&sampler, &GpuSampler::unavailable);
        std::vector<qint64> receivedUs;
        connect(&sampler, &GpuSampler::sampled, this, [&] { receivedUs.push_back(monotonicUs() - t0); });
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(sampled.count() >= 3, 30000);
        sampler.stop();
        QCOMPARE(failed.count(), 0);
        QCOMPARE(unavailable.count(), 0);
        qint64 previous = -1;
        for (int i = 0; i < sampled.count(); ++i) {
            const GpuSample sample = sampled.at(i).first().value<GpuSample>();
            QCOMPARE(sample.gpus.size(), std::size_t(2));
            QCOMPARE(sample.gpus[0].index, 0);
            QCOMPARE(sample.gpus[0].utilPct, std::optional<double>(87));
            QCOMPARE(sample.gpus[0].memUsedMib, std::optional<double>(70123));
            QCOMPARE(sample.gpus[0].memTotalMib, std::optional<double>(81559));
            QCOMPARE(sample.gpus[0].powerW, std::optional<double>(412.37));
            QCOMPARE(sample.gpus[1].index, 1);
            QCOMPARE(sample.gpus[1].powerW, std::optional<double>(71.02));
            QVERIFY(sample.tUs >= 0);
            QVERIFY(sample.tUs > previous);
            const qint64 received = receivedUs[std::size_t(i)];
            QVERIFY2(sample.tUs + 200000 <= received,
                qPrintable(QStringLiteral("stamped at %1 us, received at %2 us").arg(sample.tUs).arg(received)));
            previous = sample.tUs;
        }
    }

    // The stand-in logs its start and end: with runs due every 10 ms and each
    // taking 0.15 s, the log alternates only if no run starts while one is
    // going (the run stop() kills never logs its end).
    void runsOneAtATime()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(QStringLiteral("runs.log"));
        const QString standIn = script(dir, QStringLiteral("slow-smi"),
            "echo start >> '" + log.toLocal8Bit() + "'\nsleep 0.15\necho end >> '" + log.toLocal8Bit()
                + "'\nprintf '0, 1, 2, 3, 4\\n'\n");
        GpuSampler sampler(monotonicUs(), 10);
        sampler.setProgram(standIn);
        QSignalSpy sampled(&sampler, &GpuSampler::sampled);
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(sampled.count() >= 3, 30000);
        sampler.stop();
        QFile file(log);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QVERIFY(lines.size() >= 6);
        for (int i = 0; i < lines.size(); ++i)
            QCOMPARE(lines[i], QByteArray(i % 2 == 0 ? "start" : "end"));
    }

    void aFailingRunIsRetriedThenGivenUp()
    {
        QTemporaryDir dir;
        const QString standIn = script(dir, QStringLiteral("nvidia-smi"),
            "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 1\n");
        GpuSampler sampler(monotonicUs(), 10);
        sampler.setProgram(standIn);
        QSignalSpy sampled(&sampler, &GpuSampler::sampled);
        QSignalSpy failed(&sampler, &GpuSampler::failed);
        QSignalSpy unavailable(&sampler, &GpuSampler::unavailable);
        sampler.start();
        QVERIFY(failed.wait(30000));
        QVERIFY(sampler.isActive()); // retried at the next interval
        const QString first = failed.first().first().toString();
        QVERIFY2(first.contains(QStringLiteral("status 1")), qPrintable(first));
        QVERIFY2(first.contains(QStringLiteral("could not communicate")), qPrintable(first));
        QTRY_COMPARE_WITH_TIMEOUT(unavailable.count(), 1, 30000);
        QCOMPARE(failed.count(), GpuSampler::kMaxConsecutiveFailures);
        QCOMPARE(sampler.failures(), GpuSampler::kMaxConsecutiveFailures);
        QVERIFY(unavailable.first().first().toString().contains(QStringLiteral("10 times in a row")));
        QVERIFY(!sampler.isActive());
        QCOMPARE(sampled.count(), 0);
    }

    void aMissingProgramIsUnavailableOnce_data()
    {
        QTest::addColumn<bool>("viaEnvironment");
        QTest::newRow("setProgram") << false;
        QTest::newRow("$KNOBSCOPE_NVIDIA_SMI") << true;
    }
    void aMissingProgramIsUnavailableOnce()
    {
        QFETCH(bool, viaEnvironment);
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("no-such-nvidia-smi"));
        if (viaEnvironment)
            qputenv("KNOBSCOPE_NVIDIA_SMI", missing.toLocal8Bit());
        GpuSampler sampler(monotonicUs(), 10);
        qunsetenv("KNOBSCOPE_NVIDIA_SMI");
        if (!viaEnvironment)
            sampler.setProgram(missing);
        QCOMPARE(sampler.program(), missing);
        QSignalSpy unavailable(&sampler, &GpuSampler::unavailable);
        QSignalSpy failed(&sampler, &GpuSampler::failed);
        sampler.start();
        QCOMPARE(unavailable.count(), 0); // never from inside start()
        QVERIFY(unavailable.wait(30000));
        QVERIFY2(unavailable.first().first().toString().contains(missing),
            qPrintable(unavailable.first().first().toString()));
        QVERIFY(!sampler.isActive());
        // Ten more intervals, counted by a working sampler on the same interval (one run per
        // tick at most): by its tenth sample the first would have said more, had it gone on.
        GpuSampler control(monotonicUs(), 10);
        control.setProgram(script(dir, QStringLiteral("working-smi"), "printf '0, 1, 2, 3, 4\\n'\n"));
        QSignalSpy controlSampled(&control, &GpuSampler::sampled);
        control.start();
        QTRY_VERIFY_WITH_TIMEOUT(controlSampled.count() >= 10, 30000);
        control.stop();
        QCOMPARE(unavailable.count(), 1);
        QCOMPARE(failed.count(), 0);
    }

    void noProgramAtAllIsUnavailable()
    {
        GpuSampler sampler(monotonicUs(), 10);
        sampler.setProgram(QString());
        QSignalSpy unavailable(&sampler, &GpuSampler::unavailable);
        sampler.start();
        QVERIFY(unavailable.wait(30000));
        QVERIFY(unavailable.first().first().toString().contains(QStringLiteral("not on the PATH")));
    }

    void outputThatIsNotTheCsvIsUnavailable()
    {
        QTemporaryDir dir;
        GpuSampler sampler(monotonicUs(), 10);
        sampler.setProgram(script(dir, QStringLiteral("nvidia-smi"), "echo 'index, utilization.gpu [%]'\n"));
        QSignalSpy unavailable(&sampler, &GpuSampler::unavailable);
        QSignalSpy failed(&sampler, &GpuSampler::failed);
        sampler.start();
        QVERIFY(unavailable.wait(30000));
        QVERIFY2(unavailable.first().first().toString().contains(QStringLiteral("line 1")),
            qPrintable(unavailable.first().first().toString()));
        QCOMPARE(failed.count(), 0);
        QVERIFY(!sampler.isActive());
    }

    // A run past the limit is killed and reported; the next one is tried.
    void aHangingRunIsKilledAfterTheLimit()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(QStringLiteral("runs.log"));
        const QString standIn
            = script(dir, QStringLiteral("nvidia-smi"), "echo run >> '" + log.toLocal8Bit() + "'\nexec sleep 10\n");
        GpuSampler sampler(monotonicUs(), 10);
        sampler.setProgram(standIn);
        sampler.setTimeoutMs(200);
        QSignalSpy sampled(&sampler, &GpuSampler::sampled);
        QSignalSpy failed(&sampler, &GpuSampler::failed);
        QSignalSpy unavailable(&sampler, &GpuSampler::unavailable);
        sampler.start();
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no answer within 200 ms; killed")),
            qPrintable(failed.first().first().toString()));
        QTRY_VERIFY_WITH_TIMEOUT(failed.count() >= 2, 30000); // killed, so another run could start
        sampler.stop();
        QCOMPARE(sampled.count(), 0);
        QCOMPARE(unavailable.count(), 0);
        QFile file(log);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().count("run") >= 2);
    }

    void stopDropsARunInFlight()
    {
        QTemporaryDir dir;
        const QString started = dir.filePath(QStringLiteral("started"));
        // The stand-in notes its process id as it starts, then answers after a second.
        const QString standIn = script(dir, QStringLiteral("nvidia-smi"),
            "echo $$ >> '" + started.toLocal8Bit() + "'\nsleep 1\nprintf '0, 1, 2, 3, 4\\n'\n");
        const auto startedPids = [&started] {
            QFile file(started);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        GpuSampler sampler(monotonicUs(), 10);
        sampler.setProgram(standIn);
        QSignalSpy sampled(&sampler, &GpuSampler::sampled);
        QSignalSpy failed(&sampler, &GpuSampler::failed);
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(startedPids().endsWith('\n'), 30000);
        const pid_t pid = pid_t(startedPids().trimmed().toLongLong());
        QVERIFY(pid > 0);
        sampler.stop();
        // The dropped run's process ends (killed) and is reaped: whatever it would have said has
        // been delivered by then, to no one.
        QTRY_VERIFY_WITH_TIMEOUT(::kill(pid, 0) == -1 && errno == ESRCH, 30000);
        QCOMPARE(startedPids().count('\n'), 1); // and no other run started
        QCOMPARE(sampled.count(), 0);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!sampler.isActive());
    }
};

QTEST_GUILESS_MAIN(TestGpuSampler)
#include "tst_gpusampler.moc"
