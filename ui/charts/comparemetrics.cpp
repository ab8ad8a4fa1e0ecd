#include "charts/comparemetrics.h"

#include "store/runfile.h"

#include <QCoreApplication>

namespace ks {

namespace {

using json = nlohmann::json;

QString tr(const char* text)
{
    return QCoreApplication::translate("ComparePage", text);
}

double numberIn(const json& object, const char* key, const char* stat = nullptr)
{
    const auto v = object.find(key);
    if (v == object.end())
        return 0;
    if (!stat)
        return v->is_number() ? v->get<double>() : 0;
    const auto s = v->is_object() ? v->find(stat) : v->end();
    return v->is_object() && s != v->end() && s->is_number() ? s->get<double>() : 0;
}

const json& figuresOf(const ComparedConfig& config)
{
    static const json kNone = json::object();
    return config.reasoningTools.is_object() ? config.reasoningTools : kNone;
}

bool configHas(const ComparedConfig& config, const QString& key)
{
    const json& f = figuresOf(config);
    if (key == QLatin1String("reasoning"))
        return f.contains("reasoning_tokens_per_request");
    if (key == QLatin1String("tool-calls"))
        return f.contains("tool_calls_per_request");
    if (key == QLatin1String("itl-no-tools"))
        return f.contains("itl_ms_no_tools") && f["itl_ms_no_tools"].is_object();
    return false;
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
        const json& f = figuresOf(config);
        if (key == QLatin1String("reasoning"))
            bars.values.push_back({ numberIn(f, "reasoning_tokens_per_request"),
                numberIn(f, "answer_tokens_per_request"), numberIn(f, "tool_call_events_per_request") });
        else if (key == QLatin1String("tool-calls"))
            bars.values.push_back({ numberIn(f, "tool_calls_per_request") });
        else
            bars.values.push_back({ config.value(LatencyMetric::Itl, LatencyStat::P50).value_or(0),
                numberIn(f, "itl_ms_no_tools", "p50"), config.value(LatencyMetric::Itl, LatencyStat::P99).value_or(0),
                numberIn(f, "itl_ms_no_tools", "p99") });
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
