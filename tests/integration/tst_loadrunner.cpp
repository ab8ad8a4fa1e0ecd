// LoadRunner's own accounting: the load's CPU and the pre-connect step, against a
// real knobscope-sim process and a server that accepts and never answers.
#include "../sim/simprocess.h"
#include "load/loadrunner.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <ctime>
#include <memory>

using namespace ks;

namespace {

struct RunOutput {
    std::vector<RequestRecord> records;
    LoadResult result;
    bool finished = false;
};

// Runs one arm to its end; `onStarted` runs when the clock starts.
RunOutput runLoad(const LoadSpec& spec, int waitMs, const std::function<void()>& onStarted = {})
{
    RunOutput out;
    LoadRunner runner(spec);
    QObject::connect(&runner, &LoadRunner::recordsReady, [&](const QVector<RequestRecord>& batch) {
        out.records.insert(out.records.end(), batch.begin(), batch.end());
    });
    if (onStarted)
        QObject::connect(&runner, &LoadRunner::started, onStarted);
    QSignalSpy finished(&runner, &LoadRunner::finished);
    const QString error = runner.start();
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    if (finished.isEmpty())
        finished.wait(waitMs);
    out.finished = !finished.isEmpty();
    if (out.finished)
        out.result = finished.first().first().value<LoadResult>();
    return out;
}

LoadSpec specFor(quint16 port, int concurrency, int requests, int maxTokens)
{
    LoadSpec spec;
    spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    spec.model = QStringLiteral("sim-1.8b");
    spec.concurrency = concurrency;
    spec.requests = requests;
    spec.maxTokens = maxTokens;
    spec.inputTokens = 16;
    spec.runLabel = QStringLiteral("t");
    return spec;
}

double mainThreadCpuS()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

void spin(double seconds)
{
    const double until = mainThreadCpuS() + seconds;
    while (mainThreadCpuS() < until) { }
}

} // namespace

class TestLoadRunner : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<LoadResult>(); }

    // The dashboard draws and bootstraps on the main thread while an arm runs: that
    // is not the load's CPU and must not make a run look client-bound.
    void clientCpuCountsOnlyTheLoadsThreads()
    {
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b") }, &error), qPrintable(error));
        // 24 streams on two workers: each worker thread does all of its streams'
        // network work, so the load is exactly those two threads.
        LoadSpec spec = specFor(sim.port(), 24, 48, 24);
        spec.workerThreads = 2;

        // The main thread stays busy for the whole arm, in slices, so the load's
        // signals still reach it.
        QTimer burner;
        burner.setInterval(0);
        QObject::connect(&burner, &QTimer::timeout, [] { spin(0.02); });
        double burnStart = 0;
        const RunOutput out = runLoad(spec, 120000, [&] {
            burnStart = mainThreadCpuS();
            burner.start();
        });
        burner.stop();
        const double mainBurnS = mainThreadCpuS() - burnStart;
        QVERIFY(out.finished);
        QCOMPARE(out.records.size(), std::size_t(48));
        QCOMPARE(out.result.cpuThreads, 2);
        qInfo("main thread %.3f s, load threads %.3f s, process %.3f s", mainBurnS, out.result.cpuS,
            out.result.processCpuS);
        QVERIFY(out.result.cpuS > 0);
        // The burn is in the process's figure and not in the load's.
        QVERIFY(out.result.processCpuS >= out.result.cpuS);
        // Had the main thread's burn been counted, the load's figure would hold it too, and the
        // load plus the burn would exceed the process's by about the burn; a ratio of the two
        // alone depends on how the cores were shared (a sanitizer build slows the load, not the burn).
        QVERIFY2(out.result.cpuS <= out.result.processCpuS - mainBurnS / 2,
            "the main thread's CPU was counted as the load's");
        const ClientLoad load = clientLoadOf(out.result);
        QVERIFY(load.cpuUtilisation < out.result.processCpuS / (out.result.wallS * out.result.cores));
        QCOMPARE(sim.terminate(), 0);
    }

    // A server that accepts and never answers: the warm-up GET /v1/models gives up,
    // the failure is counted with its reason, and the arm runs (and fails) by itself.
    void preconnectToASilentServerDoesNotHang()
    {
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        std::vector<std::unique_ptr<QTcpSocket>> held; // accepted, never answered, kept open
        QObject::connect(&silent, &QTcpServer::newConnection, [&] {
            while (QTcpSocket* socket = silent.nextPendingConnection())
                held.emplace_back(socket);
        });
        LoadSpec spec = specFor(silent.serverPort(), 2, 2, 8);
        spec.stallTimeoutS = 0.3;
        spec.requestTimeoutS = 5;
        const RunOutput out = runLoad(spec, 30000);
        QVERIFY2(out.finished, "the arm hung before t0");
        QCOMPARE(out.result.stats.connectFailures, 2);
        QVERIFY(out.result.stats.connectMs.empty());
        QVERIFY(out.result.stats.connectError.contains(QStringLiteral("/v1/models")));
        QCOMPARE(out.records.size(), std::size_t(2));
        for (const RequestRecord& r : out.records) {
            QVERIFY(!r.ok);
            QCOMPARE(r.error, ErrorReason::kStalled);
        }
    }

    // A server without /v1/models still answers (404): the connection is open and
    // nothing failed.
    void preconnectCountsAnyHttpAnswerAsConnected()
    {
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b") }, &error), qPrintable(error));
        LoadSpec spec = specFor(sim.port(), 3, 3, 4);
        spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1/nowhere").arg(sim.port()));
        const RunOutput out = runLoad(spec, 60000);
        QVERIFY(out.finished);
        QCOMPARE(out.result.stats.connectFailures, 0);
        QCOMPARE(out.result.stats.connectMs.size(), std::size_t(3));
        QCOMPARE(sim.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestLoadRunner)
#include "tst_loadrunner.moc"
