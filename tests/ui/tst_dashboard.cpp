// The dashboard against a real knobscope-sim: the charts show exactly what the
// core reports, and Stop mid-run leaves a valid run file.
#include "charts/timeseriesplot.h"
#include "editor/experimentdocument.h"
#include "feeds/runcontroller.h"
#include "feeds/runfileloader.h"
#include "metrics/loghistogram.h"
#include "metrics/runsummary.h"
#include "models/runlistmodel.h"
#include "pages/livepage.h"
#include "pages/steerbox.h"
#include "source/runsnapshotter.h"
#include "source/runsource.h"
#include "store/runfile.h"
#include "window/mainwindow.h"

#include "common/freeport.h"

#include <QDoubleSpinBox>
#include <QFile>
#include <QGuiApplication>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ks;
using nlohmann::json;

namespace {

json shortSpec(int requests)
{
    const quint16 port = freePort();
    return { { "name", "dashboard-test" }, { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(port) } } },
        { "server",
            { { "command",
                  { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "sim-1.8b", "--max-num-seqs",
                      "{max_num_seqs}" } },
                { "ready_timeout_s", 20 } } },
        { "configs", { { { "label", "mns4" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 4 } } } } } },
        { "arms",
            { { { "name", "burst" }, { "mode", "concurrency" }, { "concurrency", 8 }, { "requests", requests },
                { "max_tokens", 24 } } } },
        { "prompts", { { "input_tokens", 16 } } } };
}

struct Recorded {
    QString run;
    RunSnapshot snapshot;
};

/// Calls `f` in the test's thread with every snapshot of the experiments `window` runs
/// (the runner's, connected as soon as the window's controller hands its source over).
template <class F> void onSnapshots(MainWindow& window, QObject* context, F f)
{
    QObject::connect(window.controller(), &RunController::sourceStarted, context,
        [context, f](RunSource* source) { QObject::connect(source, &RunSource::snapshotReady, context, f); });
}

} // namespace

class TestDashboard : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void chartsShowWhatTheCoreReports()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QString error;
        QVERIFY(window.document()->load(QByteArray::fromStdString(shortSpec(64).dump()), &error));
        std::vector<Recorded> seen;
        onSnapshots(window, this, [&seen](const QString& run, const RunSnapshot& s) { seen.push_back({ run, s }); });
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.run();
        QVERIFY(window.isRunning());
        QVERIFY(ended.wait(60000));
        QCOMPARE(ended.first().first().toString(), QString());
        QVERIFY(seen.size() >= 3);

        // Every snapshot with completions in its window is a point on the TTFT chart, at the same value.
        const TimeSeriesPlot* ttft = window.livePage()->chart(LiveChart::Ttft);
        const QVector<QPointF> p50 = ttft->points(QStringLiteral("mns4/p50/w"));
        const QVector<QPointF> p99 = ttft->points(QStringLiteral("mns4/p99/w"));
        std::vector<QPointF> expected50, expected99;
        for (const Recorded& r : seen) {
            if (r.snapshot.ttftWindowMs.count == 0)
                continue;
            const double x = window.livePage()->xOf(r.run, r.snapshot.atS);
            expected50.push_back({ x, r.snapshot.ttftWindowMs.p50 });
            expected99.push_back({ x, r.snapshot.ttftWindowMs.p99 });
        }
        QCOMPARE(qsizetype(p50.size()), qsizetype(expected50.size()));
        for (std::size_t i = 0; i < expected50.size(); ++i) {
            QCOMPARE(p50[qsizetype(i)], expected50[i]);
            QCOMPARE(p99[qsizetype(i)], expected99[i]);
        }

        // The last cumulative point is the run's TTFT p50 recomputed from the file.
        RunFile file;
        QVERIFY(readRunFile(window.runFilePath(), &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(1));
        const json summary
            = summarizeRun(file.runs[0].run, file.runs[0].config, file.runs[0].arm, file.runs[0].requests, {});
        QCOMPARE(summary["requests"].get<int>(), 64);
        const QVector<QPointF> cumulative = ttft->points(QStringLiteral("mns4/p50/c"));
        QVERIFY(!cumulative.isEmpty());
        // The live cumulative percentile comes from a log-linear histogram: within its stated bound.
        QVERIFY2(std::abs(cumulative.back().y() - summary["ttft_ms"]["p50"].get<double>())
                <= LogHistogram::kRelativeError * summary["ttft_ms"]["p50"].get<double>(),
            qPrintable(QString::number(cumulative.back().y())));

        // Compare followed the run from what the runner handed over, not by
        // reading back the file it was writing: the page's file is that object.
        QTRY_VERIFY_WITH_TIMEOUT(window.loader()->current() && window.loader()->current()->intervals, 30000);
        QVERIFY(window.liveRunFile());
        QCOMPARE(window.loader()->current()->file.get(), window.liveRunFile().get());
        QCOMPARE(window.liveRunFile()->runs.at(0).requests.size(), std::size_t(64));
        QCOMPARE(window.liveRunFile()->runs.at(0).summary.value().ok.value_or(0), qint64(64));

        // The queue built up at mns 4 with 8 clients, and the chart shows it.
        const QVector<QPointF> waiting
            = window.livePage()->chart(LiveChart::Server)->points(QStringLiteral("mns4/waiting"));
        QVERIFY(!waiting.isEmpty());
        QVERIFY(std::any_of(waiting.begin(), waiting.end(), [](const QPointF& p) { return p.y() >= 1; }));
    }

    void stopMidRunLeavesAValidFile()
    {
        MainWindow window;
        window.show();
        QString error;
        QVERIFY(window.document()->load(QByteArray::fromStdString(shortSpec(100000).dump()), &error));
        int snapshots = 0;
        onSnapshots(window, this, [&snapshots] { ++snapshots; });
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.run();
        QTRY_VERIFY_WITH_TIMEOUT(snapshots > 0, 30000);
        window.stop();
        QVERIFY(ended.wait(30000));
        QVERIFY(!window.isRunning());

        RunFile file;
        QVERIFY(readRunFile(window.runFilePath(), &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(!file.truncated);
        QCOMPARE(file.runs.size(), std::size_t(1));
        QCOMPARE(file.runs[0].summary.value().statusText(), QStringLiteral("stopped"));
        QVERIFY(file.runs[0].requests.size() < 100000);
    }

    // Steering from the window, and the GPU row fed by an nvidia-smi stand-in:
    // the running arm goes on as a segment, its snapshots reach the Live page,
    // and the GPU chart draws the stand-in's numbers.
    void steeringAndGpuTelemetryReachTheLivePage()
    {
        QTemporaryDir dir;
        const QString smi = dir.filePath(QStringLiteral("nvidia-smi"));
        QFile script(smi);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\ncase \"$*\" in\n*utilization.gpu*) printf '0, 73, 40000, 80000, 301.5\\n' ;;\n"
                     "*) printf 'NVIDIA H200, 550.54.15, 143771\\n' ;;\nesac\n");
        script.close();
        script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
        qputenv("KNOBSCOPE_NVIDIA_SMI", smi.toLocal8Bit());

        MainWindow window;
        window.resize(1280, 800); // the size docs/images/live-steering-baseline.png shows
        window.show();
        QString error;
        QVERIFY(window.document()->load(QByteArray::fromStdString(shortSpec(100000).dump()), &error));
        QStringList runs;
        int steeredSnapshots = 0;
        onSnapshots(window, this, [&runs, &steeredSnapshots](const QString& run) {
            if (!runs.contains(run))
                runs << run;
            steeredSnapshots += run == QLatin1String("mns4/burst~c12") ? 1 : 0;
        });
        QSignalSpy answered(window.controller(), &RunController::steerAnswered);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        // A saved run as the baseline, drawn under the live arm as it runs (matched by position).
        QSignalSpy baseline(&window, &MainWindow::baselineChanged);
        window.setBaselineFile(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl"));
        QVERIFY(baseline.wait(30000));
        QCOMPARE(baseline.first().at(1).toString(), QString());
        window.run();
        QTRY_VERIFY_WITH_TIMEOUT(runs.contains(QStringLiteral("mns4/burst")), 30000);
        emit window.livePage()->steerRequested(12); // what the Steer button sends
        QVERIFY(answered.wait(10000));
        QCOMPARE(answered.first().at(1).toString(), QString());
        QTRY_VERIFY_WITH_TIMEOUT(runs.contains(QStringLiteral("mns4/burst~c12")), 30000);
        const TimeSeriesPlot* gpu = window.livePage()->chart(LiveChart::Gpu);
        QTRY_VERIFY_WITH_TIMEOUT(!gpu->points(QStringLiteral("mns4/util")).isEmpty(), 30000);
        QVERIFY(gpu->isVisible());
        QCOMPARE(gpu->points(QStringLiteral("mns4/util")).back().y(), 73.0);
        QCOMPARE(gpu->points(QStringLiteral("mns4/mem")).back().y(), 50.0);
        QCOMPARE(gpu->points(QStringLiteral("mns4/power")).back().y(), 301.5);
        QVERIFY(!window.livePage()->chart(LiveChart::Throughput)->points(QStringLiteral("~base/0/req")).isEmpty());
        // The steered segment against the baseline (the first segment may end before any request does).
        RunListModel* table = window.livePage()->runs();
        const int segment = int(table->runs().indexOf(QStringLiteral("mns4/burst~c12")));
        QVERIFY(segment >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(table->data(table->index(segment, RunListModel::BaselineColumn))
                                     .toString()
                                     .startsWith(QStringLiteral("TTFT ")),
            30000);
        if (const QString shots = qEnvironmentVariable("KNOBSCOPE_SHOT_DIR"); !shots.isEmpty()) {
            // The picture for the docs: a few seconds of the steered segment, counted in its snapshots
            // (the runner takes one every kSnapshotIntervalUs).
            const int wanted = steeredSnapshots + int(6'000'000 / kSnapshotIntervalUs);
            QTRY_VERIFY_WITH_TIMEOUT(steeredSnapshots >= wanted, 60000);
            window.grab().save(shots + QStringLiteral("/live-steering-baseline.png"));
        }
        window.stop();
        QVERIFY(ended.wait(30000));
        qunsetenv("KNOBSCOPE_NVIDIA_SMI");
        RunFile file;
        QVERIFY(readRunFile(window.runFilePath(), &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(2));
        QCOMPARE(file.runs[1].run, QStringLiteral("mns4/burst~c12"));
        QCOMPARE(file.runs[1].info["control"]["value"].get<int>(), 12);
    }

    // Closing the window while the server is still starting (it never becomes
    // ready: the simulator answers the ready path with 404, and the readiness
    // timeout is 600 s): the close stops the run, which stops the server and
    // closes the file, and then the window closes.
    void closingTheWindowWhileTheServerStartsStopsIt()
    {
        json spec = shortSpec(100);
        spec["server"]["ready_path"] = "/never-ready";
        spec["server"]["ready_timeout_s"] = 600;
        const QUrl url(QString::fromStdString(spec["target"]["base_url"].get<std::string>()));
        auto serverAnswers = [port = quint16(url.port())] {
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, port);
            return probe.waitForConnected(500);
        };
        QGuiApplication::setQuitOnLastWindowClosed(false); // the test goes on after the window closes
        MainWindow window;
        window.show();
        QString error;
        QVERIFY(window.document()->load(QByteArray::fromStdString(spec.dump()), &error));
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.run();
        QTRY_VERIFY_WITH_TIMEOUT(serverAnswers(), 30000);
        QVERIFY(!window.close()); // refused for now: the run ends first
        QVERIFY(ended.wait(30000));
        QCOMPARE(ended.first().first().toString(), QString());
        QTRY_VERIFY(!window.isVisible());
        QVERIFY(!serverAnswers());
        RunFile file;
        QVERIFY(readRunFile(window.runFilePath(), &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(file.runs.empty());
    }

    // A rate arm in the window: the Steer box offers its rate (not a number of
    // streams), and a new rate from the box becomes the segment ARM~rR.
    void steeringARateArmFromTheSteerBox()
    {
        json spec = shortSpec(0);
        spec["arms"][0]
            = { { "name", "poisson" }, { "mode", "rate" }, { "rate", 5 }, { "duration_s", 120 }, { "max_tokens", 8 } };
        MainWindow window;
        window.show();
        QString error;
        QVERIFY(window.document()->load(QByteArray::fromStdString(spec.dump()), &error));
        QStringList runs;
        onSnapshots(window, this, [&runs](const QString& run) {
            if (!runs.contains(run))
                runs << run;
        });
        QSignalSpy answered(window.controller(), &RunController::steerAnswered);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        window.run();
        QTRY_VERIFY_WITH_TIMEOUT(runs.contains(QStringLiteral("mns4/poisson")), 30000);
        SteerBox* box = window.livePage()->steerBox();
        QTRY_VERIFY(box->field()->isEnabled());
        QCOMPARE(box->kind(), SteerBox::Kind::Rate);
        QCOMPARE(box->field()->value(), 5.0);
        box->field()->setValue(7.5);
        box->button()->click();
        QVERIFY(answered.wait(10000));
        QCOMPARE(answered.first().at(0).toString(), QStringLiteral("rate 7.5"));
        QCOMPARE(answered.first().at(1).toString(), QString());
        QTRY_VERIFY_WITH_TIMEOUT(runs.contains(QStringLiteral("mns4/poisson~r7.5")), 30000);
        QTRY_COMPARE(box->field()->value(), 7.5); // the segment's own setting
        window.stop();
        QVERIFY(ended.wait(30000));
        RunFile file;
        QVERIFY(readRunFile(window.runFilePath(), &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(2));
        QCOMPARE(file.runs[1].run, QStringLiteral("mns4/poisson~r7.5"));
        QCOMPARE(file.runs[1].info["control"]["kind"].get<std::string>(), std::string("rate"));
        QCOMPARE(file.runs[1].info["control"]["rate"].get<double>(), 7.5);
        QCOMPARE(file.runs[1].info["control"]["from"].get<double>(), 5.0);
    }
};

QTEST_MAIN(TestDashboard)
#include "tst_dashboard.moc"
