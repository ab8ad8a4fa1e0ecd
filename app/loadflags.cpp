#include "loadflags.h"

#include <QCoreApplication>

#include <cstdio>

namespace {

QCommandLineOption option(
    const char* name, const char* help, const char* valueName = nullptr, const char* def = nullptr)
{
    QCommandLineOption o(QString::fromLatin1(name), QString::fromLatin1(help));
    if (valueName)
        o.setValueName(QString::fromLatin1(valueName));
    if (def)
        o.setDefaultValue(QString::fromLatin1(def));
    return o;
}

} // namespace

std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments, const char* command)
{
    if (!parser.parse(arguments)) {
        std::fprintf(stderr, "%s: %s\n", command, qPrintable(parser.errorText()));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // QCommandLineParser names the executable; the usage line should name the subcommand.
        QString help = parser.helpText();
        help.replace(QCoreApplication::arguments().constFirst(), QString::fromLatin1(command));
        std::fputs(qPrintable(help), stdout);
        return 0;
    }
    return std::nullopt;
}

void addLoadFlags(QCommandLineParser& parser)
{
    parser.addOption(option("api", "completions or chat.", "kind", "completions"));
    parser.addOption(option("concurrency", "Closed loop: this many requests in flight at all times.", "C"));
    parser.addOption(option("rate", "Open loop: mean arrivals per second (Poisson unless --burstiness).", "R"));
    parser.addOption(option("burstiness", "Gamma shape of inter-arrival gaps: 1 Poisson, <1 burstier.", "B", "1"));
    parser.addOption(option("requests", "Stop after this many requests (default 100 without --duration).", "N"));
    parser.addOption(option("duration", "Stop sending after this many seconds.", "S"));
    parser.addOption(option("warmup", "First N requests are sent but excluded from statistics.", "N", "0"));
    parser.addOption(option("max-tokens", "Output tokens per request (ignore_eos is set).", "T", "128"));
    parser.addOption(option("input-tokens", "Words in each synthetic prompt.", "I", "128"));
    parser.addOption(option("seed", "Seed for prompts and arrival times.", "S", "1"));
    parser.addOption(option("timeout", "Per-request timeout in seconds.", "S", "600"));
    parser.addOption(option("stall-timeout", "Error when no bytes arrive for this many seconds.", "S", "60"));
    parser.addOption(option("api-key-env", "Environment variable holding the API key.", "NAME", "OPENAI_API_KEY"));
    parser.addOption(option("threads", "Worker threads (default: from the load, at most one per core).", "N", "0"));
    parser.addOption(option("no-preconnect", "Do not open connections before the timed part."));
    parser.addOption(option("insecure", "Do not verify TLS certificates of the target."));
}

QString readLoadFlags(const QCommandLineParser& p, ks::LoadSpec& spec)
{
    QString error;
    auto number = [&](const char* name, double min, double max) -> double {
        bool ok = false;
        const double v = p.value(QString::fromLatin1(name)).toDouble(&ok);
        if ((!ok || v < min || v > max) && error.isEmpty())
            error = QStringLiteral("--%1: expected a number in [%2, %3], got '%4'")
                        .arg(QLatin1String(name))
                        .arg(min)
                        .arg(max)
                        .arg(p.value(QString::fromLatin1(name)));
        return v;
    };
    auto isSet = [&](const char* name) { return p.isSet(QString::fromLatin1(name)); };

    const QString api = p.value(QStringLiteral("api"));
    if (api != QLatin1String("completions") && api != QLatin1String("chat"))
        return QStringLiteral("--api: expected completions or chat, got '%1'").arg(api);
    spec.api = api == QLatin1String("chat") ? ks::ApiKind::Chat : ks::ApiKind::Completions;
    if (isSet("concurrency") && isSet("rate"))
        return QStringLiteral("--concurrency and --rate exclude each other: a closed loop or an open one");
    if (isSet("rate")) {
        spec.mode = ks::LoadSpec::Mode::Rate;
        spec.rate = number("rate", 1e-6, 1e6);
    } else {
        spec.mode = ks::LoadSpec::Mode::Concurrency;
        spec.concurrency = isSet("concurrency") ? int(number("concurrency", 1, 100000)) : 1;
    }
    spec.burstiness = number("burstiness", 1e-3, 1e3);
    spec.requests = isSet("requests") ? int(number("requests", 1, 1e9)) : (isSet("duration") ? 0 : 100);
    spec.durationS = isSet("duration") ? number("duration", 0.001, 1e7) : 0;
    spec.warmupRequests = int(number("warmup", 0, 1e9));
    spec.maxTokens = int(number("max-tokens", 1, 1e7));
    spec.inputTokens = int(number("input-tokens", 1, 1e7));
    spec.seed = quint64(number("seed", 0, 9e15));
    spec.requestTimeoutS = number("timeout", 0.001, 1e7);
    spec.stallTimeoutS = number("stall-timeout", 0.001, 1e7);
    spec.apiKeyEnv = p.value(QStringLiteral("api-key-env"));
    spec.workerThreads = int(number("threads", 0, 256));
    spec.preconnect = !isSet("no-preconnect");
    spec.verifyTls = !isSet("insecure");
    if (!error.isEmpty())
        return error;
    return spec.validate();
}

void addSloFlags(QCommandLineParser& parser)
{
    parser.addOption(option("slo-ttft-ms",
        "Goodput counts requests at or below this TTFT (default: the experiment's slo.ttft_ms; 0: none).", "ms"));
    parser.addOption(option("slo-tpot-ms",
        "Goodput counts requests at or below this TPOT (default: the experiment's slo.tpot_ms; 0: none).", "ms"));
}

QString readSloFlags(const QCommandLineParser& parser, const ks::Slo& fromFile, ks::Slo* slo)
{
    *slo = fromFile;
    for (const auto& [name, target] :
        { std::pair { "slo-ttft-ms", &slo->ttftMs }, std::pair { "slo-tpot-ms", &slo->tpotMs } }) {
        const QString flag = QString::fromLatin1(name);
        if (!parser.isSet(flag))
            continue;
        bool ok = false;
        const double v = parser.value(flag).toDouble(&ok);
        if (!ok || v < 0 || v > 1e9)
            return QStringLiteral("--%1: expected milliseconds >= 0, got '%2'").arg(flag, parser.value(flag));
        *target = v;
    }
    return {};
}

void printReadIssues(const char* command, const std::vector<ks::RunFileIssue>& issues, const QString& file)
{
    constexpr std::size_t kShown = 20;
    const QString prefix = file.isEmpty() ? QString() : file + QLatin1Char(' ');
    for (std::size_t i = 0; i < issues.size() && i < kShown; ++i)
        std::fprintf(stderr, "%s: %sline %lld: %s\n", command, qPrintable(prefix),
            static_cast<long long>(issues[i].line), qPrintable(issues[i].message));
    if (issues.size() > kShown)
        std::fprintf(stderr, "%s: %s%zu more issues (line %lld is the last)\n", command, qPrintable(prefix),
            issues.size() - kShown, static_cast<long long>(issues.back().line));
}
