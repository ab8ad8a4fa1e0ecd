#include "commands.h"
#include "experimentcommand.h"
#include "loadflags.h"
#include "promptflags.h"
#include "runextras.h"
#include "spec/calibrationplan.h"

#include <QCommandLineParser>

#include <cstdio>

namespace {

/// The one-configuration, one-arm spec that `run --base-url` flags describe: it
/// runs through the same ExperimentRunner as any experiment and is stored in
/// the file's `experiment` line.
nlohmann::json adHocSpec(const ks::LoadSpec& s, const ks::Slo& slo, const nlohmann::json& prompts)
{
    nlohmann::json arm = { { "name", "adhoc" },
        { "max_tokens", s.maxTokensDist ? s.maxTokensDist->toJson() : nlohmann::json(s.maxTokens) },
        { "warmup", s.warmupRequests } };
    if (s.mode == ks::LoadSpec::Mode::Rate) {
        arm["mode"] = "rate";
        arm["rate"] = s.rate;
        arm["burstiness"] = s.burstiness;
    } else {
        arm["mode"] = "concurrency";
        arm["concurrency"] = s.concurrency;
    }
    if (s.requests > 0)
        arm["requests"] = s.requests;
    if (s.durationS > 0)
        arm["duration_s"] = s.durationS;
    nlohmann::json spec = { { "name", s.runLabel.toStdString() },
        { "target",
            { { "base_url", s.baseUrl.toString().toStdString() },
                { "api", s.api == ks::ApiKind::Chat ? "chat" : "completions" },
                { "api_key_env", s.apiKeyEnv.toStdString() }, { "verify_tls", s.verifyTls } } },
        { "configs",
            nlohmann::json::array({ { { "label", s.runLabel.toStdString() }, { "model", s.model.toStdString() },
                { "knobs", nlohmann::json::object() } } }) },
        { "arms", nlohmann::json::array({ arm }) }, { "prompts", prompts },
        { "client",
            { { "request_timeout_s", s.requestTimeoutS }, { "stall_timeout_s", s.stallTimeoutS },
                { "threads", s.workerThreads }, { "preconnect", s.preconnect } } } };
    // So that report and compare count goodput by the same SLO later.
    if (slo.ttftMs > 0)
        spec["slo"]["ttft_ms"] = slo.ttftMs;
    if (slo.tpotMs > 0)
        spec["slo"]["tpot_ms"] = slo.tpotMs;
    return spec;
}

} // namespace

int runCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Streams a load at an OpenAI-compatible server and records every request to a JSONL run file.\n"
                       "Example: knobscope run --base-url http://127.0.0.1:8000 --model sim-8b --concurrency 64 "
                       "--requests 256 --max-tokens 256 --out stress.jsonl"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("SPEC.json"),
        QStringLiteral("An experiment spec (docs/experiments.md). Without one, the flags below describe a single arm."),
        QStringLiteral("[SPEC.json]"));
    parser.addOption({ QStringLiteral("base-url"), QStringLiteral("Server address."), QStringLiteral("URL") });
    parser.addOption({ QStringLiteral("model"), QStringLiteral("Model name to request."), QStringLiteral("M") });
    parser.addOption({ QStringLiteral("out"), QStringLiteral("Run file to write (JSONL)."), QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("label"), QStringLiteral("Name of this run in the file."), QStringLiteral("L"),
        QStringLiteral("adhoc") });
    parser.addOption({ QStringLiteral("progress"), QStringLiteral("auto, bar or none."), QStringLiteral("mode"),
        QStringLiteral("auto") });
    parser.addOption({ QStringLiteral("max-error-rate"), QStringLiteral("Exit 1 when errors exceed this fraction."),
        QStringLiteral("F"), QStringLiteral("0.05") });
    parser.addOption({ QStringLiteral("slo-ttft-ms"), QStringLiteral("TTFT SLO for goodput."), QStringLiteral("ms"),
        QStringLiteral("0") });
    parser.addOption({ QStringLiteral("slo-tpot-ms"), QStringLiteral("TPOT SLO for goodput."), QStringLiteral("ms"),
        QStringLiteral("0") });
    parser.addOption({ QStringLiteral("shard"),
        QStringLiteral("With a spec: run shard I of N (0 <= I < N): each arm's concurrency, rate and requests split "
                       "over the shards, probes on shard 0 only; the spec must target an external server "
                       "(docs/distributed.md). Merge the parts with 'knobscope merge'."),
        QStringLiteral("I/N") });
    parser.addOption({ QStringLiteral("start-at"),
        QStringLiteral("With --shard: start at this wall-clock time (ISO 8601, UTC unless it has an offset, or "
                       "seconds since the epoch), counting down until then, so that all shards start together."),
        QStringLiteral("TIME") });
    parser.addOption({ QStringLiteral("metrics-port"),
        QStringLiteral("With a spec: serve the client's own view (TTFT/TPOT/ITL/E2E histograms, requests, errors, "
                       "in flight) in Prometheus text at http://HOST:P/metrics while the run goes (0: any free port)."),
        QStringLiteral("P") });
    parser.addOption({ QStringLiteral("metrics-host"),
        QStringLiteral("With --metrics-port: the address to listen on (an IPv4 or IPv6 address; 0.0.0.0 for every "
                       "interface, as a pod needs for the cluster's Prometheus)."),
        QStringLiteral("ADDR"), QStringLiteral("127.0.0.1") });
    parser.addOption({ QStringLiteral("control"),
        QStringLiteral(
            "stdin: steer the running arm with lines on standard input: 'concurrency N' on a concurrency arm "
            "(a new segment ARM~cN of the arm, with its own summary), 'rate R' on a rate arm (segment ARM~rR), "
            "'stop' (end the run cleanly). Not sweeps or repeats."),
        QStringLiteral("stdin") });
    parser.addOption({ QStringLiteral("aa"),
        QStringLiteral("With a spec: an A/A calibration (docs/metrics.md, \"Calibration\"): run the baseline "
                       "configuration N times (N >= 3) as N interleaved rounds, a fresh server start each, over the "
                       "spec's plain arms; compare --calibration FILE uses the spread of these runs."),
        QStringLiteral("N") });
    parser.addOption({ QStringLiteral("baseline"),
        QStringLiteral("With --aa: the configuration to calibrate (default: the spec's first)."),
        QStringLiteral("LABEL") });
    addLoadFlags(parser);
    addPromptFlags(parser);
    addLibraryOptions(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope run"))
        return *exitCode;
    RunExtras extras;
    extras.library = libraryChoiceOf(parser);
    if (parser.isSet(QStringLiteral("shard"))) {
        QString error;
        extras.shard = ks::parseShardId(parser.value(QStringLiteral("shard")), &error);
        if (!extras.shard) {
            std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("start-at"))) {
        QString error;
        extras.startAtMs = ks::parseStartAt(parser.value(QStringLiteral("start-at")), &error);
        if (!extras.startAtMs) {
            std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
            return 2;
        }
        if (!extras.shard) {
            std::fputs("knobscope run: --start-at goes with --shard I/N\n", stderr);
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("metrics-port"))) {
        bool ok = false;
        extras.metricsPort = parser.value(QStringLiteral("metrics-port")).toInt(&ok);
        if (!ok || extras.metricsPort < 0 || extras.metricsPort > 65535) {
            std::fprintf(stderr, "knobscope run: --metrics-port: expected a port 0-65535, got '%s'\n",
                qPrintable(parser.value(QStringLiteral("metrics-port"))));
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("metrics-host"))) {
        if (!extras.metricsHost.setAddress(parser.value(QStringLiteral("metrics-host")))) {
            std::fprintf(stderr,
                "knobscope run: --metrics-host: expected an IP address (127.0.0.1, 0.0.0.0, ::1), got '%s'\n",
                qPrintable(parser.value(QStringLiteral("metrics-host"))));
            return 2;
        }
        if (extras.metricsPort < 0) {
            std::fputs("knobscope run: --metrics-host goes with --metrics-port P\n", stderr);
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("control"))) {
        if (parser.value(QStringLiteral("control")) != QLatin1String("stdin")) {
            std::fputs("knobscope run: --control: expected stdin\n", stderr);
            return 2;
        }
        extras.controlStdin = true;
    }
    if (parser.isSet(QStringLiteral("aa"))) {
        bool ok = false;
        extras.calibrationRuns = parser.value(QStringLiteral("aa")).toInt(&ok);
        if (!ok || extras.calibrationRuns < ks::kMinCalibrationRuns) {
            std::fprintf(stderr,
                "knobscope run: --aa: expected a whole number of runs of at least %d (two runs give one difference, "
                "no spread), got '%s'\n",
                ks::kMinCalibrationRuns, qPrintable(parser.value(QStringLiteral("aa"))));
            return 2;
        }
        if (parser.positionalArguments().size() != 1) {
            std::fputs(
                "knobscope run: --aa N needs a spec file (knobscope run SPEC.json --aa N --out CAL.jsonl)\n", stderr);
            return 2;
        }
        if (extras.shard) {
            std::fputs("knobscope run: --aa and --shard do not go together: calibrate from one client\n", stderr);
            return 2;
        }
    }
    if (parser.isSet(QStringLiteral("baseline"))) {
        if (!parser.isSet(QStringLiteral("aa"))) {
            std::fputs("knobscope run: --baseline goes with --aa N (the configuration to calibrate)\n", stderr);
            return 2;
        }
        extras.calibrationBaseline = parser.value(QStringLiteral("baseline"));
    }
    ProgressReporter::Mode progressMode;
    if (!ProgressReporter::parseMode(parser.value(QStringLiteral("progress")), &progressMode)) {
        std::fputs("knobscope run: --progress: expected auto, bar or none\n", stderr);
        return 2;
    }
    if (!parser.isSet(QStringLiteral("out"))) {
        std::fputs("knobscope run: --out FILE is required\n", stderr);
        return 2;
    }
    if (parser.positionalArguments().size() > 1) {
        std::fputs("knobscope run: give at most one spec file\n", stderr);
        return 2;
    }
    if (parser.positionalArguments().size() == 1)
        return runExperiment(parser.positionalArguments().first(), parser.value(QStringLiteral("out")), progressMode,
            parser.value(QStringLiteral("max-error-rate")).toDouble(), extras);
    if (extras.shard) {
        // Every shard must run the same experiment, which a file (a ConfigMap on a cluster) pins down.
        std::fputs("knobscope run: --shard needs a spec file (knobscope run SPEC.json ...); "
                   "write the arm as a spec (docs/experiments.md)\n",
            stderr);
        return 2;
    }
    for (const char* required : { "base-url", "model" }) {
        if (!parser.isSet(QString::fromLatin1(required))) {
            std::fprintf(stderr, "knobscope run: give a spec file, or --%s for a single arm\n", required);
            return 2;
        }
    }
    ks::LoadSpec spec;
    spec.baseUrl = QUrl(parser.value(QStringLiteral("base-url")));
    spec.model = parser.value(QStringLiteral("model"));
    spec.runLabel = parser.value(QStringLiteral("label"));
    if (const QString error = readLoadFlags(parser, spec); !error.isEmpty()) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
        return 2;
    }
    nlohmann::json prompts;
    if (const QString error = readPromptFlags(parser, spec, &prompts); !error.isEmpty()) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
        return 2;
    }
    const ks::Slo slo { parser.value(QStringLiteral("slo-ttft-ms")).toDouble(),
        parser.value(QStringLiteral("slo-tpot-ms")).toDouble() };

    auto parsed = ks::parseExperimentSpec(QByteArray::fromStdString(adHocSpec(spec, slo, prompts).dump()));
    if (auto* errors = std::get_if<std::vector<ks::SpecError>>(&parsed)) {
        for (const ks::SpecError& e : *errors)
            std::fprintf(stderr, "knobscope run: %s\n", qPrintable(e.toString()));
        return 2;
    }
    ks::ExperimentSpec experiment = std::get<ks::ExperimentSpec>(std::move(parsed));
    experiment.adHoc = true;
    return runExperimentSpec(std::move(experiment), parser.value(QStringLiteral("out")), progressMode,
        parser.value(QStringLiteral("max-error-rate")).toDouble(), extras);
}
