#include "charts/comparemetrics.h"

#include "store/runfile.h"

#include <QCoreApplication>

namespace ks {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ComparePage", text);
}

bool configHas(const ComparedConfig& config, const QString& key)
{
    const std::optional<ReasoningFigures>& f = config.reasoningTools;
    if (!f)
        return false;
    if (key == QLatin1String("reasoning"))
        return f->reasoningTokens.has_value();
    if (key == QLatin1String("tool-calls"))
        return f->toolCalls.has_value();
    if (key == QLatin1String("itl-no-tools"))
        return f->itlNoTools.has_value();
    return false;
}

// A figure of `config`'s reasoning and tool calls, 0 where it has none (a bar of nothing).
double figureOf(const ComparedConfig& config, std::optional<double> ReasoningFigures::*field)
{
    return config.reasoningTools ? ((*config.reasoningTools).*field).value_or(0) : 0;
}

double itlNoToolsOf(const ComparedConfig& config, std::optional<double> SummaryDistribution::*stat)
{
    const std::optional<ReasoningFigures>& f = config.reasoningTools;
    return f && f->itlNoTools ? ((*f->itlNoTools).*stat).value_or(0) : 0;
}

} // namespace

const ReasoningMetric kReasoningMetrics[3] = {
    { "reasoning", QT_TRANSLATE_NOOP("ComparePage", "reasoning tokens / request") },
    { "tool-calls", QT_TRANSLATE_NOOP("ComparePage", "tool calls / request") },
    { "itl-no-tools", QT_TRANSLATE_NOOP("ComparePage", "ITL without tool deltas p50/p99") },
};

bool isReasoningMetric(const QString& key)
{
    for (const ReasoningMetric& m : kReasoningMetrics)
        if (key == QLatin1String(m.key))
            return true;
    return false;
}

bool comparisonHasMetric(const Comparison& compare, const QString& key)
{
    for (const ComparedArm& arm : compare)
        for (const ComparedConfig& config : arm.configs)
            if (configHas(config, key))
                return true;
    return false;
}

MetricBars reasoningBars(const ComparedArm& arm, const QString& key)
{
    MetricBars bars;
    if (key == QLatin1String("reasoning")) {
        bars.what = tr("tokens per request");
        bars.categories = { tr("reasoning"), tr("answer"), tr("tool-call deltas") };
        bars.yLabel = tr("tokens / request");
    } else if (key == QLatin1String("tool-calls")) {
        bars.what = tr("tool calls per request");
        bars.categories = { tr("tool calls") };
        bars.yLabel = tr("calls / request");
    } else {
        bars.what = tr("ITL with and without tool-call deltas (ms)");
        bars.categories = { tr("ITL p50"), tr("no tools p50"), tr("ITL p99"), tr("no tools p99") };
        bars.yLabel = tr("ms");
    }
    for (const ComparedConfig& config : arm.configs) {
        if (key == QLatin1String("reasoning"))
            bars.values.push_back({ figureOf(config, &ReasoningFigures::reasoningTokens),
                figureOf(config, &ReasoningFigures::answerTokens),
                figureOf(config, &ReasoningFigures::toolCallEvents) });
        else if (key == QLatin1String("tool-calls"))
            bars.values.push_back({ figureOf(config, &ReasoningFigures::toolCalls) });
        else
            bars.values.push_back({ config.value(LatencyMetric::Itl, LatencyStat::P50).value_or(0),
                itlNoToolsOf(config, &SummaryDistribution::p50),
                config.value(LatencyMetric::Itl, LatencyStat::P99).value_or(0),
                itlNoToolsOf(config, &SummaryDistribution::p99) });
    }
    return bars;
}

std::vector<double> metricValuesOf(const RunData& run, const QString& key)
{
    std::vector<double> v;
    const RequestTable& t = run.requests;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const RequestTimes r = t.times(i);
        if (!r.ok || r.warmup)
            continue;
        if (key == QLatin1String("ttft_ms") && r.ttftUs >= 0)
            v.push_back(double(r.ttftUs) / 1000.0);
        else if (key == QLatin1String("tpot_ms") && r.tpotUs() >= 0)
            v.push_back(r.tpotUs() / 1000.0);
        else if (key == QLatin1String("e2e_ms"))
            v.push_back(double(r.e2eUs) / 1000.0);
        else if (key == QLatin1String("itl_ms"))
            for (std::int32_t gap : t.itl(i))
                v.push_back(double(gap) / 1000.0);
        else if (key == QLatin1String("itl-no-tools")) {
            const std::span<const std::int32_t> gaps = t.itl(i);
            const RequestExtra* x = t.extra(i);
            const auto before
                = std::size_t(RequestRecord::itlGapsBeforeTools(qsizetype(gaps.size()), x ? x->toolCallEvents : 0));
            for (std::int32_t gap : gaps.first(before)) // as the summary's itl_ms_no_tools
                v.push_back(double(gap) / 1000.0);
        }
    }
    return v;
}

} // namespace ks
