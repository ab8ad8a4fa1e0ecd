// knobscope calibrate: the client's own measurement error against the
// simulator's truth log, on one monotonic clock (docs/simulator.md, "Truth log").
#include "armexecution.h"
#include "commands.h"
#include "loadflags.h"
#include "metrics/percentiles.h"
#include "truthlog.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>
#include <unordered_map>

namespace {

QString findSimulator(const QString& given)
{
    if (!given.isEmpty())
        return given;
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/knobscope-sim");
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("knobscope-sim"));
}

// The truth log's records by client request id (calibrate's ids are unique).
std::unordered_map<std::string, kssim::TruthRecord> truthById(const QString& path)
{
    std::unordered_map<std::string, kssim::TruthRecord> out;
    for (kssim::TruthRecord& r : kssim::readTruthLog(path))
        if (!r.clientRequestId.isEmpty())
            out[r.clientRequestId.toStdString()] = std::move(r);
    return out;
}

nlohmann::json stats(std::vector<double> v)
{
    const ks::PercentileSummary s = ks::summarize(std::move(v));
    return { { "p50", s.p50 }, { "p99", s.p99 }, { "max", s.max }, { "count", s.count } };
}

// The send path as the server saw it: post() -> the simulator's arrival stamp
// (the kernel's receive time of the request), next to send_queue_ms (post() ->
// QNetworkReply::requestSent handled by the posting thread), the client's own
// estimate of the same thing, which the report warns on.
struct SendPath {
    std::vector<double> pathMs, queueMs, arrivalToSignalMs, shares;
    int seenAfterArrival = 0;

    void add(qint64 postUs, qint64 sentSignalUs, qint64 arrivalUs)
    {
        const double path = double(arrivalUs - postUs) / 1000.0;
        pathMs.push_back(path);
        if (sentSignalUs < 0)
            return;
        const double queue = double(sentSignalUs - postUs) / 1000.0;
        queueMs.push_back(queue);
        arrivalToSignalMs.push_back(double(sentSignalUs - arrivalUs) / 1000.0);
        if (sentSignalUs > arrivalUs)
            ++seenAfterArrival;
        // Shares above 1 are real: the signal can reach the posting thread after
        // the server already has the request.
        if (path > 0)
            shares.push_back(queue / path);
    }

    nlohmann::json explains() const
    {
        const double pathP50 = ks::percentile(pathMs, 50);
        return { { "requests", int(queueMs.size()) },
            { "p50_ratio", pathP50 > 0 ? ks::percentile(queueMs, 50) / pathP50 : 0.0 },
            { "per_request_p50", ks::percentile(shares, 50) }, { "per_request_p10", ks::percentile(shares, 10) },
            { "seen_after_arrival", queueMs.empty() ? 0.0 : double(seenAfterArrival) / double(queueMs.size()) } };
    }
};

} // namespace

int calibrateCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Starts knobscope-sim with a truth log, runs a load against it, and prints how far the client's own\n"
        "measurements are from the server's: per-event delivery lag (server write -> client read), TTFT error,\n"
        "the send path (post() -> server arrival) and how much of it send_queue_ms explains, and client CPU per\n"
        "streamed event. Both sides use CLOCK_MONOTONIC."));
    parser.addHelpOption();
    parser.addOption({ QStringLiteral("sim"),
        QStringLiteral("knobscope-sim executable (default: next to knobscope, then PATH)."), QStringLiteral("path") });
    parser.addOption({ QStringLiteral("profile"), QStringLiteral("Simulator profile."), QStringLiteral("name"),
        QStringLiteral("sim-1.8b") });
    parser.addOption({ QStringLiteral("max-num-seqs"),
        QStringLiteral("Simulator batch size (default: the concurrency, so nothing queues)."), QStringLiteral("n") });
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print the result as JSON.") });
    parser.addOption({ QStringLiteral("progress"), QStringLiteral("auto, bar or none."), QStringLiteral("mode"),
        QStringLiteral("auto") });
    addLoadFlags(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope calibrate"))
        return *exitCode;
    ks::LoadSpec spec;
    spec.runLabel = QStringLiteral("calibrate");
    spec.model = parser.value(QStringLiteral("profile")); // the base URL is known once the simulator listens
    if (const QString error = readLoadFlags(parser, spec); !error.isEmpty()) {
        std::fprintf(stderr, "knobscope calibrate: %s\n", qPrintable(error));
        return 2;
    }
    if (!parser.isSet(QStringLiteral("concurrency")) && !parser.isSet(QStringLiteral("rate"))) {
        spec.mode = ks::LoadSpec::Mode::Concurrency;
        spec.concurrency = 64;
    }
    const QString sim = findSimulator(parser.value(QStringLiteral("sim")));
    if (sim.isEmpty()) {
        std::fputs("knobscope calibrate: knobscope-sim not found next to knobscope or on PATH (use --sim)\n", stderr);
        return 2;
    }
    QTemporaryDir dir;
    const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
    const int mns = parser.isSet(QStringLiteral("max-num-seqs")) ? parser.value(QStringLiteral("max-num-seqs")).toInt()
                                                                 : std::max(spec.concurrency, 1);
    QProcess server;
    server.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    server.start(sim,
        { QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--profile"),
            parser.value(QStringLiteral("profile")), QStringLiteral("--max-num-seqs"), QString::number(mns),
            QStringLiteral("--max-num-batched-tokens"), QString::number(std::max(2048, mns)),
            QStringLiteral("--truth-log"), truthPath });
    if (!server.waitForStarted(10000) || !server.waitForReadyRead(20000)) {
        std::fprintf(
            stderr, "knobscope calibrate: %s did not start: %s\n", qPrintable(sim), qPrintable(server.errorString()));
        return 2;
    }
    const QRegularExpressionMatch port
        = QRegularExpression(QStringLiteral(":(\\d+)\\s*$")).match(QString::fromUtf8(server.readLine()));
    if (!port.hasMatch()) {
        std::fputs("knobscope calibrate: the simulator did not print its address\n", stderr);
        return 2;
    }
    spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:") + port.captured(1));

    ProgressReporter::Mode progressMode;
    if (!ProgressReporter::parseMode(parser.value(QStringLiteral("progress")), &progressMode)) {
        std::fputs("knobscope calibrate: --progress: expected auto, bar or none\n", stderr);
        return 2;
    }
    ProgressReporter progress(progressMode);
    qint64 t0 = 0;
    const ArmOutcome outcome = executeArm(spec, nullptr, progress, [&](qint64 start) { t0 = start; });
    server.terminate();
    server.waitForFinished(10000);
    if (!outcome.error.isEmpty()) {
        std::fprintf(stderr, "knobscope calibrate: %s\n", qPrintable(outcome.error));
        return 2;
    }

    const auto truth = truthById(truthPath);
    SendPath send;
    std::vector<double> deliveryLagMs, ttftErrorMs;
    qint64 events = 0;
    int matched = 0;
    for (const ks::RequestRecord& r : outcome.records) {
        if (!r.ok || r.ttftUs < 0)
            continue;
        const auto it = truth.find(QStringLiteral("calibrate/%1").arg(r.id).toStdString());
        if (it == truth.end() || it->second.tokenUs.size() != r.itlUs.size() + 1)
            continue;
        ++matched;
        const kssim::TruthRecord& t = it->second;
        const qint64 sendAbs = t0 + r.tSendUs;
        qint64 readAbs = sendAbs + r.ttftUs;
        for (std::size_t i = 0; i < t.tokenUs.size(); ++i) {
            if (i > 0)
                readAbs += r.itlUs[i - 1];
            deliveryLagMs.push_back(double(readAbs - t.tokenUs[i]) / 1000.0);
        }
        events += qint64(t.tokenUs.size());
        ttftErrorMs.push_back(double(r.ttftUs - (t.tokenUs.front() - t.arrivalUs)) / 1000.0);
        send.add(sendAbs, r.tWireUs >= 0 ? t0 + r.tWireUs : -1, t.arrivalUs);
    }
    const ks::ClientLoad load = ks::clientLoadOf(outcome.result);
    nlohmann::json result = {
        { "load",
            { { "concurrency", spec.mode == ks::LoadSpec::Mode::Concurrency ? spec.concurrency : 0 },
                { "rate", spec.mode == ks::LoadSpec::Mode::Rate ? spec.rate : 0.0 },
                { "requests", outcome.records.size() }, { "matched", matched }, { "max_tokens", spec.maxTokens } } },
        { "delivery_lag_ms", stats(deliveryLagMs) },
        { "ttft_error_ms", stats(ttftErrorMs) },
        { "send_path_ms", stats(send.pathMs) },
        { "send_queue_ms", stats(send.queueMs) },
        { "arrival_to_sent_signal_ms", stats(send.arrivalToSignalMs) },
        { "send_queue_explains", send.explains() },
        { "client_cpu_us_per_event", events > 0 ? outcome.result.cpuS * 1e6 / double(events) : 0.0 },
        { "process_cpu_us_per_event", events > 0 ? outcome.result.processCpuS * 1e6 / double(events) : 0.0 },
        { "cpu_threads", outcome.result.cpuThreads },
        { "events", events },
        { "loop_lag_p99_ms", load.loopLagP99Ms },
        { "cpu_utilisation", load.cpuUtilisation },
        { "worker_threads", outcome.result.workerThreads },
    };
    if (parser.isSet(QStringLiteral("json"))) {
        std::printf("%s\n", result.dump(2).c_str());
    } else {
        auto row = [&](const char* name, const nlohmann::json& s) {
            std::printf("  %-38s p50 %8.3f  p99 %8.3f  max %8.3f ms\n", name, s["p50"].get<double>(),
                s["p99"].get<double>(), s["max"].get<double>());
        };
        std::printf("calibration: %d of %zu requests matched to the truth log, %lld token events, %d worker threads\n",
            matched, outcome.records.size(), static_cast<long long>(events), outcome.result.workerThreads);
        row("delivery lag (server write -> read)", result["delivery_lag_ms"]);
        row("TTFT error (client - server)", result["ttft_error_ms"]);
        row("send path (post -> server arrival)", result["send_path_ms"]);
        row("send_queue_ms (post -> requestSent)", result["send_queue_ms"]);
        row("  server arrival -> requestSent seen", result["arrival_to_sent_signal_ms"]);
        const nlohmann::json& explains = result["send_queue_explains"];
        if (explains["requests"].get<int>() > 0)
            std::printf(
                "  send_queue_ms is %.0f %% of the send path at p50 (per request p50 %.0f %%, p10 %.0f %%); "
                "requestSent reached the posting thread after the server had the request (send_queue_ms over the send "
                "path) for %.0f %% of requests\n",
                explains["p50_ratio"].get<double>() * 100, explains["per_request_p50"].get<double>() * 100,
                explains["per_request_p10"].get<double>() * 100, explains["seen_after_arrival"].get<double>() * 100);
        std::printf("  client CPU per event: %.1f us (the load's %d threads: %.2f s, %.0f %% of %d cores; the whole "
                    "process %.1f us per event); event-loop lag p99 %.2f ms\n",
            result["client_cpu_us_per_event"].get<double>(), outcome.result.cpuThreads, outcome.result.cpuS,
            load.cpuUtilisation * 100, load.cores, result["process_cpu_us_per_event"].get<double>(), load.loopLagP99Ms);
    }
    return matched > 0 ? 0 : 1;
}
