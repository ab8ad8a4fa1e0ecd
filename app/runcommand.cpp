#include "armexecution.h"
#include "commands.h"
#include "loadflags.h"
#include "metrics/percentiles.h"
#include "progressreporter.h"
#include "promptflags.h"
#include "workload/workload.h"

#include <QCommandLineParser>
#include <QDateTime>

#include <cstdio>

namespace {

std::string isoNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

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
                { "api_key_env", s.apiKeyEnv.toStdString() } } },
        { "configs",
            nlohmann::json::array({ { { "label", s.runLabel.toStdString() }, { "model", s.model.toStdString() },
                { "knobs", nlohmann::json::object() } } }) },
        { "arms", nlohmann::json::array({ arm }) }, { "prompts", prompts } };
    if (slo.any()) // so that report and compare count goodput by the same SLO later
        spec["slo"] = { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } };
    return spec;
}

} // namespace

int runExperiment(
    const QString& specPath, const QString& outPath, ProgressReporter::Mode progressMode, double maxErrorRate);

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
    addLoadFlags(parser);
    addPromptFlags(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope run"))
        return *exitCode;
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
            parser.value(QStringLiteral("max-error-rate")).toDouble());
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

    ks::JsonlWriter writer;
    QString error;
    if (!writer.open(parser.value(QStringLiteral("out")), &error)) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(error));
        return 2;
    }
    writer.write({ { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope " KNOBSCOPE_VERSION },
        { "started_at", isoNow() }, { "spec", adHocSpec(spec, slo, prompts) } });
    if (!writer.flush()) {
        std::fprintf(stderr, "knobscope run: %s\n", qPrintable(writer.error()));
        return 2;
    }

    ProgressReporter progress(progressMode);
    const std::string label = spec.runLabel.toStdString();
    const ArmOutcome outcome = executeArm(spec, &writer, progress, [&](qint64 t0) {
        writer.write({ { "type", "run" }, { "run", label }, { "config", label }, { "arm", "adhoc" },
            { "t0_wall", isoNow() }, { "t0_monotonic_us", t0 }, { "knobs", nlohmann::json::object() },
            { "model", spec.model.toStdString() }, { "prompts", ks::Workload::identity(spec) } });
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
