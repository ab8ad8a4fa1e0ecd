#include "workload/loadspec.h"

namespace ks {

QString LoadSpec::validate() const
{
    if (!baseUrl.isValid() || (baseUrl.scheme() != QLatin1String("http") && baseUrl.scheme() != QLatin1String("https")))
        return QStringLiteral("base URL must be http:// or https://, got '%1'").arg(baseUrl.toString());
    if (model.isEmpty())
        return QStringLiteral("a model name is required");
    if (api != ApiKind::Chat && (!prompts.toolsJson.empty() || !prompts.toolChoiceJson.empty()))
        return QStringLiteral("tools and tool_choice are sent with chat requests only (api \"chat\")");
    if (api != ApiKind::Chat && prompts.images)
        return QStringLiteral("images are sent with chat requests only (api \"chat\")");
    if (mode == Mode::Concurrency && concurrency < 1)
        return QStringLiteral("concurrency must be at least 1");
    if (mode == Mode::Rate && !(rate > 0))
        return QStringLiteral("rate must be positive");
    if (!(burstiness > 0))
        return QStringLiteral("burstiness must be positive");
    if (mode == Mode::Trace && (!trace || !trace->index))
        return QStringLiteral("a trace arm needs its trace read");
    if (mode == Mode::Trace && !(trace->speed > 0))
        return QStringLiteral("the trace's speed must be greater than 0");
    if (mode != Mode::Trace && requests <= 0 && durationS <= 0)
        return QStringLiteral("bound the load by a request count or a duration");
    if (requests < 0 || durationS < 0 || warmupRequests < 0)
        return QStringLiteral("counts and durations cannot be negative");
    if (maxTokens < 1 || inputTokens < 1)
        return QStringLiteral("max tokens and input tokens must be at least 1");
    if (prompts.multiTurn() && mode != Mode::Concurrency)
        return QStringLiteral("multi-turn sessions need concurrency mode: sessions, not arrivals, fill the slots");
    if (prompts.multiTurn() && probes)
        return QStringLiteral("probes cannot be multi-turn");
    if (prompts.source == PromptSpec::Source::File && !prompts.dataset)
        return QStringLiteral("the prompt file %1 is not loaded").arg(prompts.path);
    if (requestTimeoutS <= 0 || stallTimeoutS <= 0)
        return QStringLiteral("timeouts must be positive");
    return {};
}

bool LoadSpec::plainPrompts() const
{
    return !trace && prompts.source == PromptSpec::Source::Synthetic
        && (!prompts.inputTokens || (prompts.inputTokens->isFixed() && prompts.inputTokens->value == inputTokens))
        && prompts.prefixes == 0 && !prompts.multiTurn() && !prompts.images && !maxTokensDist && !prompts.seed;
}

} // namespace ks
