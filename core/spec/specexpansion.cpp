// What a parsed spec expands to for one configuration and arm: the server's
// command line and environment with their placeholders filled, and the
// LoadSpec of a load arm or a probe pass. Parsing and checking are in
// experimentspec.cpp.
#include "spec/experimentspec.h"

#include <QRegularExpression>

#include <algorithm>
#include <limits>

namespace ks {

const QRegularExpression& serverPlaceholderPattern()
{
    static const QRegularExpression re(QStringLiteral("\\{([A-Za-z_][A-Za-z0-9_]*)\\}"));
    return re;
}

std::optional<QString> ConfigSpec::knobText(const QString& name) const
{
    const auto it = knobs.find(name.toStdString());
    if (it == knobs.end())
        return std::nullopt;
    if (it->is_string())
        return QString::fromStdString(it->get<std::string>());
    if (it->is_number_integer())
        return QString::number(it->get<long long>());
    if (it->is_number())
        return QString::number(it->get<double>(), 'g', 12);
    if (it->is_boolean())
        return it->get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
    return std::nullopt;
}

namespace {
QString expandPlaceholders(const QString& text, const ConfigSpec& config)
{
    QString expanded;
    qsizetype last = 0;
    auto matches = serverPlaceholderPattern().globalMatch(text);
    while (matches.hasNext()) {
        const auto m = matches.next();
        const QString placeholder = m.captured(1);
        expanded += text.mid(last, m.capturedStart() - last);
        expanded += placeholder == QLatin1String("model") ? config.model
                                                          : config.knobText(placeholder).value_or(m.captured(0));
        last = m.capturedEnd();
    }
    expanded += text.mid(last);
    return expanded;
}
} // namespace

QStringList ExperimentSpec::serverCommand(const ConfigSpec& config) const
{
    QStringList argv;
    if (!server)
        return argv;
    for (const QString& part : server->command)
        argv << expandPlaceholders(part, config);
    return argv;
}

QList<QPair<QString, QString>> ExperimentSpec::serverEnvironment(const ConfigSpec& config) const
{
    QList<QPair<QString, QString>> env;
    if (!server)
        return env;
    for (const auto& [variable, value] : server->env)
        env.append({ variable, expandPlaceholders(value, config) });
    return env;
}

LoadSpec ExperimentSpec::targetLoadSpec(const ConfigSpec& config) const
{
    LoadSpec load;
    load.baseUrl = baseUrl;
    load.api = api;
    load.model = config.model;
    load.apiKeyEnv = apiKeyEnv;
    load.verifyTls = verifyTls;
    load.seed = seed;
    load.requestTimeoutS = client.requestTimeoutS;
    load.stallTimeoutS = client.stallTimeoutS;
    load.workerThreads = client.workerThreads;
    load.preconnect = client.preconnect;
    return load;
}

LoadSpec ExperimentSpec::loadSpec(const ConfigSpec& config, const ArmSpec& arm) const
{
    LoadSpec load = targetLoadSpec(config);
    load.mode = arm.mode;
    load.concurrency = arm.concurrency;
    load.rate = arm.rate;
    load.burstiness = arm.burstiness;
    load.trace = arm.trace;
    load.requests = arm.requests;
    load.durationS = arm.durationS;
    load.warmupRequests = arm.warmup;
    load.maxTokens = arm.maxTokens;
    load.maxTokensDist = arm.maxTokensDist;
    load.prompts = arm.prompts.value_or(prompts);
    load.inputTokens = arm.inputTokens > 0 ? arm.inputTokens : inputTokens;
    // Fixed lengths and the seed move into the plain fields, so a plain synthetic
    // load keeps the request factory's fast path.
    if (arm.inputTokens > 0)
        load.prompts.inputTokens.reset(); // the arm's own number wins over the spec's prompts
    else if (load.prompts.inputTokens && load.prompts.inputTokens->isFixed())
        load.inputTokens = load.prompts.inputTokens->value;
    if (load.prompts.inputTokens && load.prompts.inputTokens->isFixed())
        load.prompts.inputTokens.reset();
    load.seed = load.prompts.seed.value_or(seed);
    load.prompts.seed.reset();
    load.runLabel = adHoc ? config.label : config.label + QLatin1Char('/') + arm.name;
    return load;
}

LoadSpec ExperimentSpec::probeLoadSpec(const ConfigSpec& config, std::shared_ptr<const ProbeSet> set, int restart) const
{
    LoadSpec load = targetLoadSpec(config);
    load.mode = LoadSpec::Mode::Concurrency;
    load.concurrency = probes->concurrency;
    // repeats is only checked to be >= 1: probes × repeats can pass an int, so saturate.
    const qint64 requests = qint64(set->probes.size()) * (restart == 0 ? probes->repeats : 1);
    load.requests = int(std::min<qint64>(requests, std::numeric_limits<int>::max()));
    load.maxTokens = probes->maxTokens;
    load.inputTokens = 1; // unused: probes send their own prompts
    load.ignoreEos = false;
    load.temperature = 0;
    load.probes = std::move(set);
    load.runLabel = config.label + QLatin1Char('/') + probeRunName(restart);
    return load;
}

QString probeRunName(int restart)
{
    return restart == 0 ? QStringLiteral("probes") : QStringLiteral("probes-restart%1").arg(restart);
}

} // namespace ks
