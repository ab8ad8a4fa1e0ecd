#include "simcommandline.h"

#include <QCommandLineParser>
#include <QRandomGenerator>

#include <utility>

namespace kssim {

namespace {

struct FractionFlag {
    const char* name;
    const char* help;
    double FaultRates::*field;
};

const FractionFlag kFaultFlags[] = {
    { "fail-500", "Fraction of requests answered HTTP 500.", &FaultRates::http500 },
    { "fail-429", "Fraction of requests answered HTTP 429 with Retry-After.", &FaultRates::http429 },
    { "disconnect-mid", "Fraction of streams whose connection is dropped halfway.", &FaultRates::disconnectMid },
    { "malformed", "Fraction of streams that carry one invalid JSON event halfway.", &FaultRates::malformed },
    { "error-event", "Fraction of streams that end halfway with an error event, then [DONE].",
        &FaultRates::errorEvent },
    { "stall", "Fraction of streams that pause for --stall-ms halfway.", &FaultRates::stall },
};

} // namespace

std::variant<SimOptions, HelpRequested, QString> parseSimCommandLine(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "knobscope-sim: an OpenAI-compatible server whose timing comes from a simulated continuous-batching "
        "engine.\nProfiles: sim-1.8b, sim-8b, sim-reasoning. See docs/simulator.md."));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption(QStringLiteral("version"), QStringLiteral("Print the version and exit."));
    parser.addOption(versionOption);
    auto add = [&](const char* name, const char* help, const char* valueName = nullptr, const char* def = nullptr) {
        QCommandLineOption o(QString::fromLatin1(name), QString::fromLatin1(help));
        if (valueName)
            o.setValueName(QString::fromLatin1(valueName));
        if (def)
            o.setDefaultValue(QString::fromLatin1(def));
        parser.addOption(o);
        return o;
    };
    add("host", "Address to bind.", "addr", "127.0.0.1");
    add("port", "Port to listen on; 0 picks a free one.", "port", "8000");
    add("profile", "Simulated model: sim-1.8b, sim-8b or sim-reasoning.", "name", "sim-8b");
    add("served-model-name", "Model name the API accepts (default: the profile name).", "name");
    add("max-num-seqs", "Most sequences decoding at once (vLLM --max-num-seqs).", "n", "128");
    add("max-num-batched-tokens", "Token budget of one engine step, decode plus chunked prefill.", "n");
    add("kv-cache-tokens", "KV-cache capacity in tokens (default: the profile's).", "n");
    add("max-model-len", "Context length: prompt plus output tokens.", "n");
    add("no-prefix-caching", "Disable automatic prefix caching.");
    add("engine-seed", "Per-process numerics seed (default: random, as a real GPU process).", "n");
    add("step-jitter",
        "How much each engine step's time varies: the standard deviation of a normal factor around 1 (0 for exact "
        "steps; see docs/simulator.md).",
        "fraction", "0.03");
    add("step-scale",
        "Every engine step takes this many times its profile's time: a planted slowdown with a known true ratio "
        "(1.1 is 10 % slower; see docs/simulator.md).",
        "factor", "1");
    add("idle-wake-ms",
        "An idle engine starts its next step this long after a request arrives, so requests sent together share "
        "it (0: at once; see docs/simulator.md).",
        "ms", "5");
    add("spec-tokens",
        "Speculative decoding: draft tokens per sequence per decode step (0: off; see docs/simulator.md).", "k", "0");
    add("spec-accept", "Speculative decoding: chance that each draft token is accepted, until the first rejection.",
        "p", "0.7");
    add("spec-draft-cost", "Speculative decoding: one draft token's cost as a fraction of a step's base time.",
        "fraction", "0.15");
    add("truth-log", "Write one JSONL line per request with the server's own timestamps.", "file");
    add("truth-log-prompts", "Also write each request's prompt (or messages as JSON) into the truth log.");
    for (const FractionFlag& f : kFaultFlags)
        add(f.name, f.help, "fraction", "0");
    add("stall-ms", "How long a stalled stream pauses.", "ms", "5000");
    add("retry-after", "Retry-After seconds sent with HTTP 429.", "s", "1");
    add("fault-seed", "Seed for choosing which requests get faults (default: random).", "n");
    add("crlf", "End SSE lines with CRLF.");
    add("split-writes", "Cut every event at random byte offsets, written 1 ms apart.");
    add("comments", "Send ': keep-alive' comment lines between events.");
    add("max-body-bytes", "Largest accepted request body (default 32 MiB).", "bytes", "33554432");
    add("arrival-stamp",
        "How a request's arrival_us is stamped: 'kernel', the kernel's receive time of its first bytes; 'read', "
        "when the event loop reads them (late by up to a write pass; kept for measuring the difference).",
        "mode", "kernel");

    if (!parser.parse(arguments))
        return parser.errorText();
    if (parser.isSet(helpOption))
        return HelpRequested { parser.helpText() };
    if (parser.isSet(versionOption))
        return HelpRequested { QStringLiteral("knobscope-sim " KNOBSCOPE_VERSION "\n") };
    if (!parser.positionalArguments().isEmpty())
        return QStringLiteral("unexpected argument: %1").arg(parser.positionalArguments().first());

    QString error;
    auto integer = [&](const char* name, long long min, long long max) -> long long {
        bool ok = false;
        const long long v = parser.value(QString::fromLatin1(name)).toLongLong(&ok);
        if ((!ok || v < min || v > max) && error.isEmpty())
            error = QStringLiteral("--%1: expected an integer in [%2, %3], got '%4'")
                        .arg(QLatin1String(name))
                        .arg(min)
                        .arg(max)
                        .arg(parser.value(QString::fromLatin1(name)));
        return v;
    };
    auto isSet = [&](const char* name) { return parser.isSet(QString::fromLatin1(name)); };

    SimOptions o;
    const auto profile = findProfile(parser.value(QStringLiteral("profile")));
    if (!profile)
        return QStringLiteral("--profile: unknown profile '%1' (known: %2)")
            .arg(parser.value(QStringLiteral("profile")), profileNames().join(QStringLiteral(", ")));
    o.engine.profile = *profile;
    if (!o.host.setAddress(parser.value(QStringLiteral("host"))))
        return QStringLiteral("--host: not an IP address: '%1'").arg(parser.value(QStringLiteral("host")));
    o.port = quint16(integer("port", 0, 65535));
    o.servedModelName = isSet("served-model-name") ? parser.value(QStringLiteral("served-model-name")) : profile->name;
    o.engine.maxNumSeqs = int(integer("max-num-seqs", 1, 65536));
    o.engine.maxNumBatchedTokens = isSet("max-num-batched-tokens")
        ? int(integer("max-num-batched-tokens", 1, 1 << 24))
        : std::max(profile->defaultMaxBatchedTokens, o.engine.maxNumSeqs);
    o.engine.kvCacheTokens
        = isSet("kv-cache-tokens") ? integer("kv-cache-tokens", 1, 1LL << 40) : profile->kvCacheTokens;
    if (isSet("max-model-len"))
        o.engine.profile.maxModelLen = int(integer("max-model-len", 2, 1 << 24));
    o.engine.prefixCaching = !isSet("no-prefix-caching");
    o.engineSeed = isSet("engine-seed")
        ? std::uint64_t(integer("engine-seed", 0, std::numeric_limits<long long>::max()))
        : QRandomGenerator::system()->generate64();
    {
        bool ok = false;
        const double jitter = parser.value(QStringLiteral("step-jitter")).toDouble(&ok);
        if (!ok || !(jitter >= 0) || jitter > 0.25)
            return QStringLiteral("--step-jitter: expected a fraction in [0, 0.25], got '%1'")
                .arg(parser.value(QStringLiteral("step-jitter")));
        o.engine.stepJitter = jitter;
        o.engine.jitterSeed = o.engineSeed ^ 0x9e3779b97f4a7c15ULL; // its own stream, not the numerics'
    }
    {
        bool ok = false;
        const double scale = parser.value(QStringLiteral("step-scale")).toDouble(&ok);
        if (!ok || !(scale >= 0.1) || scale > 10)
            return QStringLiteral("--step-scale: expected a factor in [0.1, 10], got '%1'")
                .arg(parser.value(QStringLiteral("step-scale")));
        o.engine.stepScale = scale;
    }
    o.engine.idleWakeUs = integer("idle-wake-ms", 0, 1000) * 1000;
    o.engine.specTokens = int(integer("spec-tokens", 0, 32));
    for (const auto& [name, field] : { std::pair { "spec-accept", &EngineConfig::specAccept },
             std::pair { "spec-draft-cost", &EngineConfig::specDraftCost } }) {
        bool ok = false;
        const double v = parser.value(QString::fromLatin1(name)).toDouble(&ok);
        if (!ok || !(v >= 0) || v > 1)
            return QStringLiteral("--%1: expected a fraction in [0, 1], got '%2'")
                .arg(QLatin1String(name), parser.value(QString::fromLatin1(name)));
        o.engine.*field = v;
    }
    o.engine.specSeed = o.engineSeed ^ 0xd1b54a32d192ed03ULL; // its own stream: acceptance repeats with --engine-seed
    o.faultSeed = isSet("fault-seed") ? std::uint64_t(integer("fault-seed", 0, std::numeric_limits<long long>::max()))
                                      : QRandomGenerator::system()->generate64();
    o.truthLogPath = parser.value(QStringLiteral("truth-log"));
    o.truthLogPrompts = isSet("truth-log-prompts");
    for (const FractionFlag& f : kFaultFlags) {
        bool ok = false;
        const double v = parser.value(QString::fromLatin1(f.name)).toDouble(&ok);
        if (!ok || v < 0 || v > 1)
            return QStringLiteral("--%1: expected a fraction in [0, 1], got '%2'")
                .arg(QLatin1String(f.name), parser.value(QString::fromLatin1(f.name)));
        o.faults.*(f.field) = v;
    }
    if (o.faults.total() > 1.0 + 1e-9)
        return QStringLiteral("fault fractions add up to %1; they are exclusive and must sum to at most 1")
            .arg(o.faults.total());
    o.faults.stallMs = int(integer("stall-ms", 0, 3600 * 1000));
    o.faults.retryAfterS = int(integer("retry-after", 0, 3600));
    o.wire.crlf = isSet("crlf");
    o.wire.splitWrites = isSet("split-writes");
    o.wire.comments = isSet("comments");
    o.limits.maxBodyBytes = integer("max-body-bytes", 1, 1LL << 30);
    const QString arrivalStamp = parser.value(QStringLiteral("arrival-stamp"));
    if (arrivalStamp != QLatin1String("kernel") && arrivalStamp != QLatin1String("read"))
        return QStringLiteral("--arrival-stamp: expected kernel or read, got '%1'").arg(arrivalStamp);
    o.kernelArrivalStamps = arrivalStamp == QLatin1String("kernel");
    if (!error.isEmpty())
        return error;
    if (o.engine.maxNumBatchedTokens < o.engine.maxNumSeqs)
        return QStringLiteral("--max-num-batched-tokens (%1) must be at least --max-num-seqs (%2)")
            .arg(o.engine.maxNumBatchedTokens)
            .arg(o.engine.maxNumSeqs);
    return o;
}

} // namespace kssim
