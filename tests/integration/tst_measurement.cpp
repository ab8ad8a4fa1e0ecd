// The measurement engine and CLI against the real knobscope-sim process.
#include "../sim/simprocess.h"
#include "load/arrivalschedule.h"
#include "load/loadrunner.h"
#include "run/metricsscraper.h"
#include "store/runfile.h"

#include "common/freeport.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <memory>

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

std::map<qint64, QString> truthFaults(const QString& path)
{
    std::map<qint64, QString> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return out;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        const auto j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
        if (j.is_discarded() || !j["client_request_id"].is_string())
            continue;
        const QString id = QString::fromStdString(j["client_request_id"].get<std::string>());
        out[id.section(QLatin1Char('/'), 1).toLongLong()] = QString::fromStdString(j["fault"].get<std::string>());
    }
    return out;
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
        QTest::qWait(300); // several more intervals: no retry
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
        const nlohmann::json live = file.runs.at(0).summary;

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
        QVERIFY(!data.summary.is_null());
        QCOMPARE(data.summary["interrupted"].get<bool>(), true);
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
        QVERIFY(file.runs[0].summary.is_null()); // killed: no summary line, but every record before it reads
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
