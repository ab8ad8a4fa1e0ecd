#include "armexecution.h"
#include "commands.h"
#include "loadflags.h"
#include "metrics/percentiles.h"
#include "progressreporter.h"
#include "runextras.h"
#include "util/wallclock.h"

#include <QCommandLineParser>
#include <QDateTime>

#include <cstdio>

namespace {

std::string isoNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

nlohmann::json adHocSpec(const ks::LoadSpec& s, const ks::Slo& slo)
{
    nlohmann::json arm = { { "name", "adhoc" }, { "max_tokens", s.maxTokens }, { "warmup", s.warmupRequests } };
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
                { "api_key_env", s.apiKeyEnv.toStdString() } } },
        { "configs",
            nlohmann::json::array({ { { "label", s.runLabel.toStdString() }, { "model", s.model.toStdString() },
                { "knobs", nlohmann::json::object() } } }) },
        { "arms", nlohmann::json::array({ arm }) },
        { "prompts", { { "source", "synthetic" }, { "input_tokens", s.inputTokens }, { "seed", s.seed } } } };
    if (slo.any()) // so that report and compare count goodput by the same SLO later
        spec["slo"] = { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } };
    return spec;
}

} // namespace

int runExperiment(const QString& specPath, const QString& outPath, ProgressReporter::Mode progressMode,
    double maxErrorRate, const RunExtras& extras);

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
    addLoadFlags(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope run"))
        return *exitCode;
    RunExtras extras;
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
    if (extras.shard || extras.metricsPort >= 0) {
        // Every shard must run the same experiment, which a file (a ConfigMap on a cluster) pins down.
        std::fputs("knobscope run: --shard and --metrics-port need a spec file (knobscope run SPEC.json ...); "
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
    const ks::Slo slo { parser.value(QStringLiteral("slo-ttft-ms")).toDouble(),
        parser.value(QStringLiteral("slo-tpot-ms")).toDouble() };

    ks::JsonlWriter writer;
    QString error;
    if (!writer.open(parser.value(QStringLiteral("out")), &error)) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
        return 2;
    }
    writer.write({ { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope " KNOBSCOPE_VERSION },
        { "started_at", isoNow() }, { "spec", adHocSpec(spec, slo) } });
    if (!writer.flush()) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(writer.error()));
        return 2;
    }

    ProgressReporter progress(progressMode);
    const std::string label = spec.runLabel.toStdString();
    const ArmOutcome outcome = executeArm(spec, &writer, progress, [&](qint64 t0) {
        writer.write({ { "type", "run" }, { "run", label }, { "config", label }, { "arm", "adhoc" },
            { "t0_wall", isoNow() }, { "t0_monotonic_us", t0 }, { "t0_unix_us", ks::unixUsAtMonotonic(t0) },
            { "knobs", nlohmann::json::object() }, { "model", spec.model.toStdString() } });
        writer.flush();
    });
    if (!outcome.error.isEmpty()) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(outcome.error));
        return 2;
    }
    nlohmann::json summary = ks::summarizeRun(
        spec.runLabel, spec.runLabel, QStringLiteral("adhoc"), outcome.records, slo, ks::clientLoadOf(outcome.result));
    if (!outcome.result.stats.connectMs.empty())
        summary["connect_ms"] = ks::percentile(outcome.result.stats.connectMs, 50);
    summary["interrupted"] = outcome.interrupted;
    nlohmann::json line = summary;
    line["type"] = "summary";
    writer.write(line);
    writer.close();

    std::printf("%s\n", qPrintable(ks::formatSummaryTable(summary)));
    if (outcome.interrupted)
        std::printf("  stopped early: %zu requests recorded\n", outcome.records.size());
    std::fflush(stdout);
    if (writer.failed()) {
        // The summary above is all there is of this run's end: say so, and fail.
        std::fprintf(stderr,
            "knobscope run: %s\nknobscope run: the run stopped there; the file keeps every line written before "
            "the failure, but not this summary\n",
            qPrintable(writer.error()));
        return 1;
    }
    const int requests = summary["requests"].get<int>();
    const double errorRate = requests > 0 ? summary["errors"].get<double>() / requests : 0;
    return errorRate > parser.value(QStringLiteral("max-error-rate")).toDouble() ? 1 : 0;
}
