// How long the dashboard's main thread stalls while a heavy run streams into
// it, and how long a chart takes to redraw a million points. Prints numbers;
// asserts nothing. Offscreen unless QT_QPA_PLATFORM says otherwise.
//
//   ui_stall [--concurrency 256] [--requests 1024] [--max-tokens 128] [--points 1000000]
#include "charts/timeseriesplot.h"
#include "editor/experimentdocument.h"
#include "feeds/runcontroller.h"
#include "metrics/percentiles.h"
#include "source/runsource.h"
#include "window/mainwindow.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTimer>

#include <cstdio>

namespace {

quint16 freePort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

void printSummary(const char* what, std::vector<double> values)
{
    const ks::PercentileSummary s = ks::summarize(std::move(values));
    std::printf("%-28s p50 %7.2f  p99 %7.2f  max %7.2f  (n=%d)\n", what, s.p50, s.p99, s.max, s.count);
}

double replotMs(ks::TimeSeriesPlot& chart, int repeats)
{
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < repeats; ++i)
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
    return double(t.nsecsElapsed()) / 1e6 / repeats;
}

} // namespace

int main(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // no settings or run files in the user's folders
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        { QStringLiteral("concurrency"), QStringLiteral("Streams."), QStringLiteral("N"), QStringLiteral("256") });
    parser.addOption(
        { QStringLiteral("requests"), QStringLiteral("Requests."), QStringLiteral("N"), QStringLiteral("1024") });
    parser.addOption(
        { QStringLiteral("max-tokens"), QStringLiteral("Tokens."), QStringLiteral("N"), QStringLiteral("128") });
    parser.addOption(
        { QStringLiteral("points"), QStringLiteral("Chart points."), QStringLiteral("N"), QStringLiteral("1000000") });
    parser.process(app);
    const int concurrency = parser.value(QStringLiteral("concurrency")).toInt();
    const int requests = parser.value(QStringLiteral("requests")).toInt();
    const int maxTokens = parser.value(QStringLiteral("max-tokens")).toInt();
    const int points = parser.value(QStringLiteral("points")).toInt();

    ks::MainWindow window;
    window.resize(1280, 800);
    window.show();
    const quint16 port = freePort();
    const nlohmann::json spec = { { "name", "ui-stall" },
        { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(port) } } },
        { "server",
            { { "command",
                  { "knobscope-sim", "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                      "{max_num_seqs}" } },
                { "ready_timeout_s", 30 } } },
        { "configs", { { { "label", "mns256" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 256 } } } } } },
        { "arms",
            { { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", concurrency },
                { "requests", requests }, { "max_tokens", maxTokens } } } },
        { "prompts", { { "input_tokens", 64 } } } };
    QString error;
    window.document()->load(QByteArray::fromStdString(spec.dump()), &error);

    // A 2 ms probe timer on the main thread: its lateness is how long the event loop was blocked.
    std::vector<double> stallMs;
    int snapshots = 0;
    bool armRunning = false;
    QElapsedTimer since;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(2);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const double late = double(since.nsecsElapsed()) / 1e6 - 2.0;
        if (armRunning)
            stallMs.push_back(std::max(0.0, late));
        since.restart();
    });
    // The runner's signals, queued into this thread as the window gets them.
    QObject::connect(window.controller(), &ks::RunController::sourceStarted, &window, [&](ks::RunSource* source) {
        QObject::connect(source, &ks::RunSource::runStarted, &window, [&] { armRunning = true; });
        QObject::connect(source, &ks::RunSource::runFinished, &window, [&] { armRunning = false; });
        QObject::connect(source, &ks::RunSource::snapshotReady, &window, [&] { ++snapshots; });
    });
    QSignalSpy ended(&window, &ks::MainWindow::runEnded);
    since.start();
    probe.start();
    QElapsedTimer wall;
    wall.start();
    window.run();
    if (!ended.wait(600000)) {
        std::fputs("run did not finish\n", stderr);
        return 1;
    }
    probe.stop();
    const double seconds = double(wall.elapsed()) / 1000.0;
    std::printf("run: %d streams, %d requests x %d tokens, %.1f s, %d snapshots (%.1f/s), message '%s'\n", concurrency,
        requests, maxTokens, seconds, snapshots, snapshots / seconds, qPrintable(ended.first().first().toString()));
    printSummary("main-thread stall (ms)", stallMs);

    ks::TimeSeriesPlot chart(QStringLiteral("bench"), QStringLiteral("ms"));
    chart.resize(640, 300);
    chart.show();
    chart.ensureSeries(QStringLiteral("s"), QStringLiteral("series"), QPen(Qt::blue));
    for (int i = 0; i < 1000; ++i)
        chart.append(QStringLiteral("s"), i * 0.1, 100 + (i % 37));
    chart.resetZoom();
    const double small = replotMs(chart, 20);
    for (int i = 1000; i < points; ++i)
        chart.append(QStringLiteral("s"), i * 0.1, 100 + (i % 37) + (i % 1009) * 0.01);
    chart.resetZoom();
    const double large = replotMs(chart, 20);
    std::printf(
        "chart replot: 1000 points %.2f ms, %d points %.2f ms (ratio %.1fx)\n", small, points, large, large / small);
    return 0;
}
