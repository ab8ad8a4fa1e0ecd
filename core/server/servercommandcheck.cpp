#include "server/servercommandcheck.h"

#include <QFileInfo>

#include <algorithm>

namespace ks {

namespace {

// What the command runs: argv[0]'s file name, or for "python3 -m pkg.module"
// the module's top package ("vllm", "sglang").
QString launchedProgram(const QStringList& argv)
{
    const QString program = QFileInfo(argv.value(0)).fileName();
    if (program.startsWith(QLatin1String("python"))) {
        const qsizetype m = argv.indexOf(QStringLiteral("-m"));
        if (m > 0)
            return argv.value(m + 1).section(QLatin1Char('.'), 0, 0);
    }
    return program;
}

bool hasFlag(const QStringList& argv, const QString& flag)
{
    return std::any_of(argv.begin(), argv.end(),
        [&](const QString& arg) { return arg == flag || arg.startsWith(flag + QLatin1Char('=')); });
}

} // namespace

QStringList serverCommandWarnings(const QStringList& argv)
{
    QStringList warnings;
    const QString program = launchedProgram(argv);
    if (program == QLatin1String("vllm") && hasFlag(argv, QStringLiteral("--disable-log-stats")))
        warnings << QStringLiteral("the vLLM command has --disable-log-stats, which turns off every gauge on its "
                                   "/metrics (running, waiting, KV cache): the queue-depth charts stay empty and "
                                   "gentle arms cannot be told apart from idle ones; remove the flag");
    if (program == QLatin1String("sglang") && !hasFlag(argv, QStringLiteral("--enable-metrics")))
        warnings << QStringLiteral("the SGLang command has no --enable-metrics, so SGLang serves no /metrics: the "
                                   "queue-depth charts stay empty; add --enable-metrics");
    if (program == QLatin1String("llama-server") && !hasFlag(argv, QStringLiteral("--metrics")))
        warnings << QStringLiteral("the llama-server command has no --metrics, so it serves no /metrics: the "
                                   "queue-depth charts stay empty; add --metrics");
    return warnings;
}

} // namespace ks
