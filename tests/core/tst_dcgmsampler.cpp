// GPU readings from a DCGM exporter's Prometheus text as the exporter prints
// them, and the DCGM sampler against a scripted exporter: samples, an exporter
// without DCGM metrics, a 404, and one that does not answer in time.
#include "telemetry/dcgmsampler.h"
#include "util/monotonicclock.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>

using namespace ks;

namespace {

// Two GPUs as dcgm-exporter prints them (labels as in its README: gpu, UUID,
// device, modelName, Hostname); GPU 1 reports no power (DCGM's "not
// supported" blank, 0x7ffffffffffffff0 + 2) and no free memory.
const QByteArray kExporter = R"(# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 87
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-1b2c3d4e-0000-1111-2222-333344445555",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 3
# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 10894
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 70123
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-1b2c3d4e-0000-1111-2222-333344445555",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 1024
# HELP DCGM_FI_DEV_FB_RESERVED Framebuffer memory reserved (in MiB).
# TYPE DCGM_FI_DEV_FB_RESERVED gauge
DCGM_FI_DEV_FB_RESERVED{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 542
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 412.370000
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-1b2c3d4e-0000-1111-2222-333344445555",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 9223372036854775794
# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 1980
)";

QByteArray http(int status, const QByteArray& body)
{
    return "HTTP/1.1 " + QByteArray::number(status)
        + " X\r\nContent-Type: text/plain\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

// Answers the n-th GET (from 1) with reply(n); an empty answer leaves it hanging.
class ScriptedExporter : public QObject {
public:
    explicit ScriptedExporter(std::function<QByteArray(int)> reply)
        : m_reply(std::move(reply))
    {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                    QByteArray& buffer = m_buffers[socket];
                    buffer += socket->readAll();
                    for (qsizetype end; (end = buffer.indexOf("\r\n\r\n")) >= 0;) {
                        paths << buffer.left(buffer.indexOf("\r\n")).split(' ').value(1);
                        buffer.remove(0, end + 4);
                        const QByteArray answer = m_reply(++requests);
                        if (!answer.isEmpty())
                            socket->write(answer);
                    }
                });
            }
        });
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort())); }
    int requests = 0;
    QList<QByteArray> paths;

private:
    QTcpServer m_server;
    std::function<QByteArray(int)> m_reply;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

} // namespace

class TestDcgmSampler : public QObject {
    Q_OBJECT
private slots:
    void readsTheExportersGpus()
    {
        const std::vector<GpuReading> gpus = gpuReadingsFromDcgm(parsePrometheusText(kExporter).samples);
        QCOMPARE(gpus.size(), std::size_t(2));
        QCOMPARE(gpus[0].index, 0);
        QCOMPARE(gpus[0].utilPct, std::optional<double>(87));
        QCOMPARE(gpus[0].memUsedMib, std::optional<double>(70123));
        QCOMPARE(gpus[0].memTotalMib, std::optional<double>(70123 + 10894 + 542)); // used + free + reserved
        QCOMPARE(gpus[0].powerW, std::optional<double>(412.37));
        QCOMPARE(gpus[1].index, 1);
        QCOMPARE(gpus[1].utilPct, std::optional<double>(3));
        QCOMPARE(gpus[1].memUsedMib, std::optional<double>(1024));
        QVERIFY(!gpus[1].memTotalMib); // no free memory reported: no total either
        QVERIFY(!gpus[1].powerW); // a blank is no reading
    }

    void leavesOutMigInstancesAndOtherMetrics()
    {
        const QByteArray text = "DCGM_FI_DEV_FB_USED{gpu=\"0\",GPU_I_ID=\"1\",GPU_I_PROFILE=\"1g.10gb\"} 512\n"
                                "DCGM_FI_DEV_GPU_UTIL{gpu=\"x\"} 50\n"
                                "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-1\"} 50\n"
                                "vllm:num_requests_running 3\n";
        QVERIFY(gpuReadingsFromDcgm(parsePrometheusText(text).samples).empty());
    }

    void samplesArriveWithRisingSendTimes()
    {
        ScriptedExporter exporter([](int) { return http(200, kExporter); });
        const qint64 t0 = monotonicUs();
        DcgmSampler sampler(exporter.url(), t0, 20);
        QCOMPARE(sampler.url().path(), QStringLiteral("/metrics"));
        QSignalSpy sampled(&sampler, &DcgmSampler::sampled);
        QSignalSpy failed(&sampler, &DcgmSampler::failed);
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(sampled.count() >= 3, 30000);
        sampler.stop();
        QCOMPARE(failed.count(), 0);
        QCOMPARE(exporter.paths.first(), QByteArray("/metrics"));
        qint64 previous = -1;
        for (const QList<QVariant>& args : sampled) {
            const GpuSample sample = args.first().value<GpuSample>();
            QCOMPARE(sample.gpus.size(), std::size_t(2));
            QCOMPARE(sample.gpus[0].powerW, std::optional<double>(412.37));
            QVERIFY(sample.tUs > previous);
            previous = sample.tUs;
        }
        QVERIFY(previous <= monotonicUs() - t0);
    }

    void anExporterWithoutGpuMetricsIsUnavailableOnce_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::newRow("404") << http(404, "not found");
        QTest::newRow("no DCGM metrics") << http(200, "process_cpu_seconds_total 1\n");
    }
    void anExporterWithoutGpuMetricsIsUnavailableOnce()
    {
        QFETCH(QByteArray, answer);
        ScriptedExporter exporter([answer](int) { return answer; });
        DcgmSampler sampler(exporter.url(), 0, 10);
        QSignalSpy unavailable(&sampler, &DcgmSampler::unavailable);
        QSignalSpy failed(&sampler, &DcgmSampler::failed);
        sampler.start();
        QVERIFY(unavailable.wait(30000));
        QVERIFY(!sampler.isActive());
        // Ten more intervals, counted by a sampler of a working exporter on the same interval (one
        // request at a time): by its tenth sample the first would have asked again, had it gone on.
        ScriptedExporter working([](int) { return http(200, kExporter); });
        DcgmSampler control(working.url(), 0, 10);
        QSignalSpy controlSampled(&control, &DcgmSampler::sampled);
        control.start();
        QTRY_VERIFY_WITH_TIMEOUT(controlSampled.count() >= 10, 30000);
        control.stop();
        QCOMPARE(exporter.requests, 1);
        QCOMPARE(unavailable.count(), 1);
        QCOMPARE(failed.count(), 0);
    }

    void aSlowAnswerFailsAndIsRetried()
    {
        ScriptedExporter exporter([](int n) { return n == 1 ? QByteArray() : http(200, kExporter); });
        DcgmSampler sampler(exporter.url(), 0, 20);
        sampler.setTimeoutMs(200);
        QSignalSpy sampled(&sampler, &DcgmSampler::sampled);
        QSignalSpy failed(&sampler, &DcgmSampler::failed);
        sampler.start();
        QVERIFY(sampled.wait(30000));
        sampler.stop();
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.first().first().toString().contains(QStringLiteral("no answer within 200 ms")),
            qPrintable(failed.first().first().toString()));
        QCOMPARE(sampler.failures(), 1);
    }
};

QTEST_GUILESS_MAIN(TestDcgmSampler)
#include "tst_dcgmsampler.moc"
