// The measurement engine and CLI against the real knobscope-sim process.
#include "../sim/simprocess.h"
#include "load/arrivalschedule.h"
#include "load/loadrunner.h"
#include "store/runfile.h"
#include "telemetry/metricsscraper.h"
#include "truthlog.h"

#include "common/freeport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <set>
#include <sys/resource.h>

using namespace ks;

namespace {

struct RunOutput {
    std::vector<RequestRecord> records;
    LoadResult result;
};

RunOutput runLoad(const LoadSpec& spec)
{
    RunOutput out;
    LoadRunner runner(spec);
    QObject::connect(&runner, &LoadRunner::recordsReady, [&](const QVector<RequestRecord>& batch) {
        out.records.insert(out.records.end(), batch.begin(), batch.end());
    });
    QSignalSpy finished(&runner, &LoadRunner::finished);
    const QString error = runner.start();
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    if (finished.isEmpty())
        finished.wait(120000);
    if (!finished.isEmpty())
        out.result = finished.first().first().value<LoadResult>();
    return out;
}

LoadSpec specFor(quint16 port, int concurrency, int requests, int maxTokens)
{
    LoadSpec spec;
    spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    spec.model = QStringLiteral("sim-8b");
    spec.concurrency = concurrency;
    spec.requests = requests;
    spec.maxTokens = maxTokens;
    spec.inputTokens = 16;
    spec.runLabel = QStringLiteral("t");
    return spec;
}

// `knobscope run` against the simulator: 4 streams, no progress output.
QStringList cliRunArgs(quint16 port, int requests, int maxTokens, const QString& out)
{
    return { QStringLiteral("run"), QStringLiteral("--base-url"), QStringLiteral("http://127.0.0.1:%1").arg(port),
        QStringLiteral("--model"), QStringLiteral("sim-8b"), QStringLiteral("--concurrency"), QStringLiteral("4"),
        QStringLiteral("--requests"), QString::number(requests), QStringLiteral("--max-tokens"),
        QString::number(maxTokens), QStringLiteral("--progress"), QStringLiteral("none"), QStringLiteral("--out"),
        out };
}

QByteArray httpGet(quint16 port, const QByteArray& path)
{
    QProcess curl; // a second, independent client for /metrics
    curl.start(QStringLiteral("curl"),
        { QStringLiteral("-s"), QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(QString::fromLatin1(path)) });
    curl.waitForFinished(10000);
    return curl.readAllStandardOutput();
}

double metric(const QByteArray& text, const QByteArray& name)
{
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith(name + ' '))
            return line.mid(name.size() + 1).toDouble();
    }
    return -1;
}

int maxInFlight(const std::vector<RequestRecord>& records)
{
    std::vector<std::pair<qint64, int>> edges;
    for (const RequestRecord& r : records) {
        edges.push_back({ r.tSendUs, +1 });
        edges.push_back({ r.tSendUs + r.e2eUs, -1 });
    }
    std::sort(edges.begin(), edges.end());
    int now = 0;
    int peak = 0;
    for (const auto& [t, d] : edges)
        peak = std::max(peak, now += d);
    return peak;
}

struct TruthRequest {
    qint64 endUs = -1;
    bool completed = false; ///< the server sent the whole answer
    QString fault; ///< the fault the simulator injected ("none" when it injected none)
};

// The simulator's own log, by request index (X-Request-Id is LABEL/INDEX).
std::map<qint64, TruthRequest> truthRequests(const QString& path)
{
    std::map<qint64, TruthRequest> out;
    for (const kssim::TruthRecord& r : kssim::readTruthLog(path))
        if (!r.clientRequestId.isEmpty())
            out[kssim::requestIndexOf(r)] = { r.endUs,
                r.status == 200 && r.fault == QLatin1String("none") && !r.finishReason.isEmpty(), r.fault };
    return out;
}

// The fault the simulator injected into each request, by request index.
std::map<qint64, QString> truthFaults(const QString& path)
{
    std::map<qint64, QString> out;
    for (const auto& [id, request] : truthRequests(path))
        out[id] = request.fault;
    return out;
}

QString writeSpec(const QTemporaryDir& dir, const nlohmann::json& spec)
{
    const QString path = dir.filePath(QStringLiteral("spec.json"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(QByteArray::fromStdString(spec.dump()));
    return path;
}

// One configuration, one long arm, against a server `command` knobscope launches.
nlohmann::json launchedSpec(quint16 port, const nlohmann::json& command)
{
    return { { "name", "lifecycle" }, { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(port) } } },
        { "server", { { "command", command }, { "ready_timeout_s", 600 } } },
        { "configs", { { { "label", "only" }, { "model", "sim-8b" } } } },
        { "arms",
            { { { "name", "long" }, { "mode", "concurrency" }, { "concurrency", 4 }, { "requests", 100000 },
                { "max_tokens", 16 } } } } };
}

bool portAnswers(quint16 port)
{
    QTcpSocket probe;
    probe.connectToHost(QHostAddress::LocalHost, port);
    return probe.waitForConnected(500);
}

// Alive and not a zombie waiting to be reaped.
bool processAlive(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close > 0 && text.size() > close + 2 && text[close + 2] != 'Z';
}

std::vector<nlohmann::json> serverEvents(const QString& path)
{
    std::vector<nlohmann::json> events;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return events;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        const auto j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
        if (!j.is_discarded() && j.value("type", std::string()) == "server_event")
            events.push_back(j);
    }
    return events;
}

qint64 steadyNowUs() // the clock both knobscope-sim's truth log and the client use
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

class TestMeasurement : public QObject {
    Q_OBJECT

    std::unique_ptr<SimProcess> startSim(const QStringList& args)
    {
        auto sim = std::make_unique<SimProcess>();
        QString error;
        if (!sim->start(args, &error)) {
            qWarning("knobscope-sim did not start: %s", qPrintable(error));
            return nullptr;
        }
        return sim;
    }

private slots:
    void initTestCase() { qRegisterMetaType<LoadResult>(); }

    // 64 streams really in flight at once, not 6 (Qt 6.4's per-QNAM cap).
    void sixtyFourStreamsAreTrulyConcurrent()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        const RunOutput out = runLoad(specFor(sim->port(), 64, 192, 24));
        QCOMPARE(out.records.size(), std::size_t(192));
        QVERIFY(std::all_of(out.records.begin(), out.records.end(), [](const RequestRecord& r) { return r.ok; }));
        QCOMPARE(maxInFlight(out.records), 64);
        QCOMPARE(metric(httpGet(sim->port(), "/metrics"), "knobscope_sim_open_connections_peak"), 64.0);
        for (const RequestRecord& r : out.records) {
            QCOMPARE(r.outTokens, 24);
            QVERIFY(r.outTokensFromUsage);
            QCOMPARE(int(r.itlUs.size()), 23);
            QVERIFY(r.ttftUs > 0 && r.e2eUs > r.ttftUs);
        }
        QCOMPARE(out.result.stats.connectMs.size(), std::size_t(64)); // one pre-opened connection per slot
    }

    void faultsAreAttributedToTheirReason_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("reason");
        QTest::newRow("500") << "--fail-500"
                             << "http_500"
                             << "http_500";
        QTest::newRow("429") << "--fail-429"
                             << "http_429"
                             << "http_429";
        QTest::newRow("disconnect") << "--disconnect-mid"
                                    << "disconnect_mid"
                                    << "transport";
        QTest::newRow("malformed") << "--malformed"
                                   << "malformed_event"
                                   << "undecodable_event";
        QTest::newRow("error event") << "--error-event"
                                     << "error_event"
                                     << "error_event";
        QTest::newRow("stall") << "--stall"
                               << "stall"
                               << "stalled";
    }
    void faultsAreAttributedToTheirReason()
    {
        QFETCH(QString, flag);
        QFETCH(QString, fault);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim({ flag, QStringLiteral("0.3"), QStringLiteral("--fault-seed"), QStringLiteral("5"),
            QStringLiteral("--stall-ms"), QStringLiteral("3000"), QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 8, 40, 12);
        spec.stallTimeoutS = 0.6;
        const RunOutput out = runLoad(spec);
        QCOMPARE(sim->terminate(), 0);
        const auto truth = truthFaults(truthPath);
        QCOMPARE(out.records.size(), std::size_t(40));
        int faulted = 0;
        int collateral = 0;
        for (const RequestRecord& r : out.records) {
            if (!truth.count(r.id)) {
                // Never reached the server. Known QNAM behaviour: when the server drops a
                // connection mid-stream, the closed loop's next POST can be placed on that
                // connection before QNAM has processed the close, and fails there. That is
                // collateral of the disconnect, recorded truthfully as a transport error.
                QVERIFY2(
                    fault == QLatin1String("disconnect_mid") && r.error == QLatin1String("transport") && r.status == 0,
                    qPrintable(QStringLiteral("request %1 (%2: %3) has no truth record")
                                   .arg(r.id)
                                   .arg(r.error, r.errorDetail)));
                ++collateral;
                continue;
            }
            const QString injected = truth.at(r.id);
            if (injected == QLatin1String("none")) {
                QVERIFY2(r.ok,
                    qPrintable(QStringLiteral("unfaulted request %1 recorded as %2: %3")
                                   .arg(r.id)
                                   .arg(r.error, r.errorDetail)));
            } else {
                QCOMPARE(injected, fault);
                QCOMPARE(r.error, reason);
                QVERIFY(!r.ok);
                ++faulted;
            }
        }
        QVERIFY2(faulted >= 4, qPrintable(QString::number(faulted))); // 30 % of 40, seeded
        QVERIFY2(collateral <= 2, qPrintable(QString::number(collateral)));
    }

    void timeoutAndStallAreDistinctReasons()
    {
        // Every stream pauses for 3 s halfway: a 0.5 s stall timeout calls it stalled,
        // a 1 s request timeout with a long stall timeout calls it a timeout.
        auto sim = startSim(
            { QStringLiteral("--stall"), QStringLiteral("1"), QStringLiteral("--stall-ms"), QStringLiteral("3000") });
        QVERIFY(sim);
        LoadSpec stalled = specFor(sim->port(), 2, 2, 8);
        stalled.stallTimeoutS = 0.5;
        const RunOutput stalledOut = runLoad(stalled);
        QCOMPARE(stalledOut.records.size(), std::size_t(2));
        for (const RequestRecord& r : stalledOut.records)
            QCOMPARE(r.error, QStringLiteral("stalled"));
        LoadSpec slow = specFor(sim->port(), 2, 2, 8);
        slow.stallTimeoutS = 30;
        slow.requestTimeoutS = 1;
        const RunOutput slowOut = runLoad(slow);
        QCOMPARE(slowOut.records.size(), std::size_t(2));
        for (const RequestRecord& r : slowOut.records)
            QCOMPARE(r.error, QStringLiteral("timeout"));
    }

    void scraperSeesTheServerQueueUnderLoad()
    {
        auto sim = startSim({ QStringLiteral("--max-num-seqs"), QStringLiteral("4") });
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 12, 24, 24);
        std::vector<ServerSample> samples;
        MetricsScraper scraper(spec.baseUrl, monotonicUs(), 100);
        connect(&scraper, &MetricsScraper::sampled, this, [&](const ServerSample& s) { samples.push_back(s); });
        scraper.start();
        runLoad(spec);
        scraper.stop();
        QVERIFY(samples.size() >= 3);
        double maxRunning = 0;
        double maxWaiting = 0;
        for (const ServerSample& s : samples) {
            QCOMPARE(s.engine, QStringLiteral("vllm"));
            maxRunning = std::max(maxRunning, s.running.value_or(0));
            maxWaiting = std::max(maxWaiting, s.waiting.value_or(0));
        }
        QCOMPARE(maxRunning, 4.0); // max-num-seqs
        QVERIFY(maxWaiting >= 1); // 12 clients, 4 slots: the queue was seen
    }

    void serverWithoutMetricsIsReportedOnce()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        // A path prefix under which nothing is served: /prefix/metrics is a 404.
        MetricsScraper scraper(
            QUrl(QStringLiteral("http://127.0.0.1:%1/prefix/v1").arg(sim->port())), monotonicUs(), 50);
        QSignalSpy unavailable(&scraper, &MetricsScraper::unavailable);
        QSignalSpy sampled(&scraper, &MetricsScraper::sampled);
        scraper.start();
        QVERIFY(unavailable.wait(5000));
        QVERIFY(!scraper.isActive());
        // Several more intervals, counted by a second scraper on the same interval and the real
        // /metrics: by its sixth sample the first would have asked again had it retried.
        MetricsScraper control(QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(sim->port())), monotonicUs(), 50);
        QSignalSpy controlSampled(&control, &MetricsScraper::sampled);
        control.start();
        QTRY_VERIFY_WITH_TIMEOUT(controlSampled.size() >= 6, 10000);
        control.stop();
        QCOMPARE(unavailable.size(), 1);
        QCOMPARE(sampled.size(), 0);
        QVERIFY(unavailable.first().first().toString().contains(QStringLiteral("HTTP 404")));
    }

    void rateModeKeepsEachIntendedSendTime()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 1, 60, 4);
        spec.mode = LoadSpec::Mode::Rate;
        spec.rate = 40;
        spec.seed = 9;
        const RunOutput out = runLoad(spec);
        QCOMPARE(out.records.size(), std::size_t(60));
        const std::vector<qint64> schedule = gammaArrivals(40, 1.0, 60, 0, 9);
        for (const RequestRecord& r : out.records) {
            QVERIFY(r.ok);
            QCOMPARE(r.tSchedUs, schedule[std::size_t(r.id)]);
            QVERIFY(r.tSendUs >= r.tSchedUs);
        }
    }

    void warmupRequestsAreMarked()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 2, 10, 2);
        spec.warmupRequests = 3;
        const RunOutput out = runLoad(spec);
        QCOMPARE(
            std::count_if(out.records.begin(), out.records.end(), [](const RequestRecord& r) { return r.warmup; }), 3);
    }

    void cliRunAndReportAgree()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN), cliRunArgs(sim->port(), 20, 8, out));
        QVERIFY(run.waitForFinished(60000));
        QCOMPARE(run.exitCode(), 0);
        QVERIFY(run.readAllStandardOutput().contains("ttft_ms"));

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QCOMPARE(file.experiment.value("schema", 0), 1);
        const nlohmann::json live = runSummaryToJson(file.runs.at(0).summary.value());
        // An ad-hoc run goes through the experiment runner: its name is the
        // label, and it scraped the server and got the gentle-arm check.
        QCOMPARE(file.runs.at(0).run, QStringLiteral("adhoc"));
        QCOMPARE(live.value("status", std::string()), std::string("completed"));
        QVERIFY(live.contains("gentle"));
        QCOMPARE(live["server"].value("metrics", std::string()), std::string("ok"));
        QVERIFY(live["server"].value("samples", 0) >= 1);
        QCOMPARE(file.experiment["spec"]["client"].value("preconnect", false), true);

        QProcess report;
        report.start(QStringLiteral(KNOBSCOPE_BIN), { QStringLiteral("report"), out, QStringLiteral("--json") });
        QVERIFY(report.waitForFinished(30000));
        QCOMPARE(report.exitCode(), 0);
        const QByteArray text = report.readAllStandardOutput();
        const auto reported = nlohmann::json::parse(text.begin(), text.end()).at(0);
        for (const char* key : { "requests", "ok", "errors" })
            QVERIFY(reported[key] == live[key]);
        for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" }) {
            for (const char* p : { "p50", "p99", "max" })
                QCOMPARE(reported[key][p].get<double>(), live[key][p].get<double>());
        }
        QCOMPARE(reported["req_per_s"].get<double>(), live["req_per_s"].get<double>());
        QVERIFY(reported.contains("client"));
    }

    // Goodput in report counts the SLO the run was made with (kept in the file),
    // and --slo-ttft-ms overrides it; before, report passed no SLO at all.
    void cliReportCountsGoodputByTheRunsSlo()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("slo.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            cliRunArgs(sim->port(), 12, 4, out) << QStringLiteral("--slo-ttft-ms") << QStringLiteral("0.001"));
        QVERIFY(run.waitForFinished(60000));
        QCOMPARE(run.exitCode(), 0);
        auto report = [&](const QStringList& extra) {
            QProcess p;
            p.start(QStringLiteral(KNOBSCOPE_BIN),
                QStringList { QStringLiteral("report"), out, QStringLiteral("--json") } + extra);
            p.waitForFinished(30000);
            const QByteArray text = p.readAllStandardOutput();
            return nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
        };
        const auto strict = report({});
        QVERIFY(strict.is_array());
        QVERIFY(strict[0]["req_per_s"].get<double>() > 0);
        QCOMPARE(strict[0]["goodput_req_per_s"].get<double>(), 0.0); // no TTFT is under 1 µs
        QCOMPARE(strict[0]["slo"]["ttft_ms"].get<double>(), 0.001);
        const auto loose = report({ QStringLiteral("--slo-ttft-ms"), QStringLiteral("1e6") });
        QCOMPARE(loose[0]["goodput_req_per_s"].get<double>(), loose[0]["req_per_s"].get<double>());
    }

    void cliStopMidRunLeavesACompleteFile()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("stopped.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN), cliRunArgs(sim->port(), 10000, 6, out));
        QVERIFY(run.waitForStarted());
        auto requestLines = [&] {
            QFile f(out);
            return f.open(QIODevice::ReadOnly) ? f.readAll().count("\"type\":\"request\"") : 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(requestLines() >= 8, 30000);
        run.terminate(); // SIGTERM: the same clean stop as Ctrl-C
        QVERIFY(run.waitForFinished(30000));
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(!file.truncated);
        const RunData& data = file.runs.at(0);
        QVERIFY(data.summary.has_value());
        QCOMPARE(data.summary->interrupted.value_or(false), true);
        QVERIFY(data.requests.size() >= 8 && data.requests.size() < 10000);
        const auto cancelled = std::count_if(data.requests.begin(), data.requests.end(),
            [](const RequestRecord& r) { return r.error == QLatin1String("cancelled"); });
        QVERIFY(cancelled <= 4); // at most the in-flight ones
        QVERIFY(std::none_of(data.requests.begin(), data.requests.end(),
            [](const RequestRecord& r) { return !r.ok && r.error != QLatin1String("cancelled"); }));
    }

    // kill -9 of 'knobscope run SPEC.json' mid-arm: the simulator it launched
    // stops too (PR_SET_PDEATHSIG), and the file it wrote reads.
    void aLaunchedServerDiesWithAKilledKnobscope()
    {
        QTemporaryDir dir;
        const quint16 port = freePort();
        const nlohmann::json spec
            = { { "name", "killed" }, { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(port) } } },
                  { "server",
                      { { "command", { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}" } },
                          { "ready_timeout_s", 20 } } },
                  { "configs", { { { "label", "only" }, { "model", "sim-8b" } } } },
                  { "arms",
                      { { { "name", "long" }, { "mode", "concurrency" }, { "concurrency", 4 }, { "requests", 100000 },
                          { "max_tokens", 16 } } } } };
        const QString specPath = dir.filePath(QStringLiteral("killed.json"));
        QFile specFile(specPath);
        QVERIFY(specFile.open(QIODevice::WriteOnly));
        specFile.write(QByteArray::fromStdString(spec.dump()));
        specFile.close();
        const QString out = dir.filePath(QStringLiteral("killed.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), specPath, QStringLiteral("--out"), out, QStringLiteral("--progress"),
                QStringLiteral("none") });
        QVERIFY(run.waitForStarted());
        auto requestLines = [&] {
            QFile f(out);
            return f.open(QIODevice::ReadOnly) ? f.readAll().count("\"type\":\"request\"") : 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(requestLines() >= 8, 30000);
        run.kill(); // SIGKILL: no handler runs in knobscope
        QVERIFY(run.waitForFinished(10000));
        auto serverAnswers = [port] {
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, port);
            return probe.waitForConnected(500);
        };
        QTRY_VERIFY_WITH_TIMEOUT(!serverAnswers(), 15000);

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(1));
        QVERIFY(file.runs[0].requests.size() >= 8);
        QVERIFY(!file.runs[0].summary); // killed: no summary line, but every record before it reads
    }

    // kill -9 of an ad-hoc 'knobscope run' mid-arm, checked against the
    // simulator's own log: every request the server finished before the last
    // flush interval is in the file, on whole lines that 'report' reads.
    void aKilledRunLosesAtMostTheLastFlushInterval()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim({ QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        const QString out = dir.filePath(QStringLiteral("killed.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN), cliRunArgs(sim->port(), 100000, 8, out));
        QVERIFY(run.waitForStarted());
        auto requestLines = [&] {
            QFile f(out);
            return f.open(QIODevice::ReadOnly) ? f.readAll().count("\"type\":\"request\"") : 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(requestLines() >= 120, 60000);
        // Killed while the server has finished requests the file does not hold yet (records
        // read or on their way, not written out): the loss this test bounds. The server's
        // count is read before the file's, so "more" means more at the moment of the file read.
        // The 4 streams end together, once per engine cycle, and the file catches up within a flush
        // interval: the window is tens of ms each cycle, so the server is asked in-process (about
        // a millisecond) and the condition polled at qWaitFor's pace, not curl's and QTRY's 50 ms.
        const auto serverFinished = [&] {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, sim->port());
            if (!socket.waitForConnected(5000))
                return qint64(-1);
            socket.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            QByteArray text;
            qsizetype wanted = -1;
            while ((wanted < 0 || text.size() < wanted) && socket.waitForReadyRead(5000)) {
                text += socket.readAll();
                const qsizetype headerEnd = text.indexOf("\r\n\r\n");
                const qsizetype length = text.toLower().indexOf("content-length: ");
                if (wanted < 0 && headerEnd >= 0 && length >= 0 && length < headerEnd)
                    wanted = headerEnd + 4
                        + text.mid(length + 16, text.indexOf("\r\n", length) - length - 16).toLongLong();
            }
            double total = 0;
            for (const QByteArray& line : text.split('\n'))
                if (line.startsWith("vllm:request_success_total{"))
                    total += line.mid(line.lastIndexOf(' ') + 1).toDouble();
            return qint64(total);
        };
        const auto finishedNotWritten = [&] {
            const qint64 finished = serverFinished();
            return finished > requestLines();
        };
        QVERIFY2(QTest::qWaitFor(finishedNotWritten, 60000),
            "the file never lagged the server: no moment with finished requests not yet written");
        const qint64 killedUs = steadyNowUs();
        run.kill(); // SIGKILL: nothing in knobscope runs after this
        QVERIFY(run.waitForFinished(10000));
        QCOMPARE(sim->terminate(), 0); // closes (and so completes) the truth log

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(!file.truncated); // whole lines only: each flush is one write
        QCOMPARE(file.runs.size(), std::size_t(1));
        QVERIFY(!file.runs[0].summary);
        std::set<qint64> recorded;
        for (const RequestRecord& r : file.runs[0].requests) {
            QVERIFY(r.ok);
            recorded.insert(r.id);
        }
        QCOMPARE(recorded.size(), file.runs[0].requests.size());

        // Compared on request ids: what the file has, the server served, and
        // what the server finished but the file lacks, it finished within the
        // last flush interval (100 ms) plus slack for a busy shared machine.
        constexpr qint64 kFlushIntervalUs = 100'000;
        constexpr qint64 kSchedulingSlackUs = 900'000;
        const std::map<qint64, TruthRequest> truth = truthRequests(truthPath);
        int olderThanWindow = 0;
        int lost = 0;
        qint64 oldestLostMs = 0;
        QStringList lostEarly;
        for (const auto& [id, t] : truth) {
            if (!t.completed)
                continue;
            const bool old = t.endUs < killedUs - kFlushIntervalUs - kSchedulingSlackUs;
            olderThanWindow += old ? 1 : 0;
            if (!recorded.count(id)) {
                ++lost;
                oldestLostMs = std::max(oldestLostMs, (killedUs - t.endUs) / 1000);
            }
            if (old && !recorded.count(id))
                lostEarly
                    << QStringLiteral("%1 (ended %2 ms before the kill)").arg(id).arg((killedUs - t.endUs) / 1000);
        }
        for (qint64 id : recorded) {
            QVERIFY2(truth.count(id), qPrintable(QStringLiteral("request %1 is not in the truth log").arg(id)));
            QVERIFY(truth.at(id).completed);
            QVERIFY(truth.at(id).endUs < killedUs);
        }
        qInfo("%zu requests in the file; the server finished %d more, the oldest %lld ms before the kill",
            recorded.size(), lost, static_cast<long long>(oldestLostMs));
        QVERIFY2(lostEarly.isEmpty(), qPrintable(lostEarly.join(QStringLiteral(", "))));
        QVERIFY(olderThanWindow >= 60); // the check covered most of the run, not only its tail

        // And 'report' reads it, counting the same requests.
        QProcess report;
        report.start(QStringLiteral(KNOBSCOPE_BIN), { QStringLiteral("report"), out, QStringLiteral("--json") });
        QVERIFY(report.waitForFinished(30000));
        QCOMPARE(report.exitCode(), 0);
        const auto reported = nlohmann::json::parse(report.readAllStandardOutput().toStdString(), nullptr, false);
        QVERIFY(!reported.is_discarded());
        QCOMPARE(reported[0]["requests"].get<std::size_t>(), recorded.size());
    }

    // A disk that fills mid-run (here: a file size limit on the knobscope
    // process): the run stops with an error naming the file, exits 1, prints
    // the summary it could not save, and the file reads up to the failure.
    void aFullDiskStopsTheRunWithAClearError()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("full.jsonl"));
        constexpr rlim_t kLimit = 24 * 1024;
        QProcess run;
        run.setChildProcessModifier([] {
            std::signal(SIGXFSZ, SIG_IGN); // a write past the limit fails with EFBIG instead
            rlimit limit {};
            ::getrlimit(RLIMIT_FSIZE, &limit);
            limit.rlim_cur = kLimit;
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        run.start(QStringLiteral(KNOBSCOPE_BIN), cliRunArgs(sim->port(), 100000, 8, out));
        QVERIFY(run.waitForFinished(120000)); // 100000 requests would take far longer
        const QString stderrText = QString::fromLocal8Bit(run.readAllStandardError());
        const QString stdoutText = QString::fromLocal8Bit(run.readAllStandardOutput());
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QCOMPARE(run.exitCode(), 1);
        QVERIFY2(stderrText.contains(QStringLiteral("cannot write the run file %1: %2")
                                         .arg(out, QString::fromLocal8Bit(std::strerror(EFBIG)))),
            qPrintable(stderrText));
        QVERIFY2(stderrText.contains(QStringLiteral("but not the summary of adhoc")), qPrintable(stderrText));
        QVERIFY2(stdoutText.contains(QStringLiteral("run adhoc: ")), qPrintable(stdoutText));

        QVERIFY(QFileInfo(out).size() <= qint64(kLimit));
        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(!file.truncated);
        QCOMPARE(file.runs.size(), std::size_t(1));
        QVERIFY(file.runs[0].requests.size() > 10);
        QVERIFY(!file.runs[0].summary);
    }

    // Ctrl-C while knobscope waits for a server that never becomes ready (the
    // simulator, asked for a path it answers with 404): the wait ends, the
    // server is stopped and the file closes, long before the 600 s timeout.
    void ctrlCWhileTheServerStartsStopsItAndClosesTheFile()
    {
        QTemporaryDir dir;
        const quint16 port = freePort();
        nlohmann::json spec = launchedSpec(port, { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port) });
        spec["server"]["ready_path"] = "/never-ready";
        const QString out = dir.filePath(QStringLiteral("starting.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), writeSpec(dir, spec), QStringLiteral("--out"), out, QStringLiteral("--progress"),
                QStringLiteral("none") });
        QVERIFY(run.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(portAnswers(port), 30000);
        ::kill(pid_t(run.processId()), SIGINT);
        QVERIFY(run.waitForFinished(30000));
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QCOMPARE(run.exitCode(), 0);
        QVERIFY(!portAnswers(port));
        const auto events = serverEvents(out);
        QVERIFY(!events.empty());
        QCOMPARE(events.front()["event"].get<std::string>(), std::string("starting"));
        QCOMPARE(events.back()["event"].get<std::string>(), std::string("stopped"));
        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(!file.truncated);
        QVERIFY(file.runs.empty());
    }

    // A server that ignores SIGTERM (and a long stop_grace_s) keeps the first
    // Ctrl-C waiting; the second leaves at once with 130, the file reads, and
    // the server's whole process group is gone.
    void aSecondCtrlCLeavesAtOnceAndTakesTheServerAlong()
    {
        QTemporaryDir dir;
        const quint16 port = freePort();
        nlohmann::json spec
            = launchedSpec(port, { "/bin/sh", "-c", "trap '' TERM INT; sleep 300 & echo \"pids $$ $!\"; wait" });
        spec["server"]["stop_grace_s"] = 300;
        const QString out = dir.filePath(QStringLiteral("twice.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), writeSpec(dir, spec), QStringLiteral("--out"), out, QStringLiteral("--progress"),
                QStringLiteral("none") });
        QVERIFY(run.waitForStarted());
        QList<qint64> serverPids; // the shell and its sleep, as the shell printed them
        auto serverStarted = [&] {
            for (const auto& e : serverEvents(out)) {
                const QString detail = QString::fromStdString(e.value("detail", std::string()));
                if (e["event"] == "output" && detail.startsWith(QStringLiteral("pids "))) {
                    serverPids = { detail.section(QLatin1Char(' '), 1, 1).toLongLong(),
                        detail.section(QLatin1Char(' '), 2, 2).toLongLong() };
                    return true;
                }
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(serverStarted(), 30000);
        QVERIFY(processAlive(serverPids[0]) && processAlive(serverPids[1]));

        ::kill(pid_t(run.processId()), SIGINT);
        QByteArray stderrText;
        QTRY_VERIFY_WITH_TIMEOUT((stderrText += run.readAllStandardError()).contains("stopping"), 30000);
        QVERIFY(run.state() == QProcess::Running); // waiting out the grace period
        ::kill(pid_t(run.processId()), SIGINT);
        QVERIFY(run.waitForFinished(30000)); // not the 300 s grace
        QCOMPARE(run.exitStatus(), QProcess::NormalExit);
        QCOMPARE(run.exitCode(), 130);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(serverPids[0]) && !processAlive(serverPids[1]), 10000);

        RunFile file;
        QString error;
        QVERIFY(readRunFile(out, &file, &error));
        QVERIFY(file.issues.empty());
        QVERIFY(!file.truncated);
        const auto events = serverEvents(out);
        QCOMPARE(events.front()["event"].get<std::string>(), std::string("starting"));
    }

    void cliRejectsBadUsage()
    {
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("m"), QStringLiteral("--out"),
                QStringLiteral("/tmp/ks-unused.jsonl") });
        QVERIFY(run.waitForFinished(10000));
        QCOMPARE(run.exitCode(), 2);
        QVERIFY(run.readAllStandardError().contains("--base-url"));
        QProcess both;
        both.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), QStringLiteral("--base-url"), QStringLiteral("http://127.0.0.1:1"),
                QStringLiteral("--model"), QStringLiteral("m"), QStringLiteral("--concurrency"), QStringLiteral("2"),
                QStringLiteral("--rate"), QStringLiteral("3"), QStringLiteral("--out"),
                QStringLiteral("/tmp/x.jsonl") });
        QVERIFY(both.waitForFinished(10000));
        QCOMPARE(both.exitCode(), 2);

        // A mistyped subcommand is a usage error with a suggestion, never an
        // attempt to open the dashboard; so is 'open' without a file.
        auto usage = [](const QStringList& args) {
            QProcess p;
            p.setProcessEnvironment(QProcessEnvironment()); // no DISPLAY either way
            p.start(QStringLiteral(KNOBSCOPE_BIN), args);
            p.waitForFinished(10000);
            return std::pair { p.exitCode(), QString::fromLocal8Bit(p.readAllStandardError()) };
        };
        const auto [typoCode, typo] = usage({ QStringLiteral("reprot"), QStringLiteral("run.jsonl") });
        QCOMPARE(typoCode, 2);
        QVERIFY2(typo.contains(QStringLiteral("unknown command 'reprot' (did you mean 'report'?)")), qPrintable(typo));
        QVERIFY2(typo.contains(QStringLiteral("usage:")), qPrintable(typo));
        const auto [openCode, open] = usage({ QStringLiteral("open") });
        QCOMPARE(openCode, 2);
        QVERIFY2(open.contains(QStringLiteral("give a run file")), qPrintable(open));
        const auto [missingCode, missing] = usage({ QStringLiteral("open"), QStringLiteral("/nonexistent/x.jsonl") });
        QCOMPARE(missingCode, 2);
        QVERIFY2(missing.contains(QStringLiteral("no such file")), qPrintable(missing));
    }
};

QTEST_GUILESS_MAIN(TestMeasurement)
#include "tst_measurement.moc"
