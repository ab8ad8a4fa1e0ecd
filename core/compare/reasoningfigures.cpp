#include "compare/reasoningfigures.h"

#include <QStringList>

#include <algorithm>

namespace ks {

namespace {

using json = nlohmann::json;

// Per-request figures: the summary's total, and the compare key.
struct PerRequest {
    const char* total;
    const char* key;
};
constexpr PerRequest kPerRequest[] = {
    { "reasoning_tokens", "reasoning_tokens_per_request" },
    { "answer_tokens", "answer_tokens_per_request" },
    { "tool_call_events", "tool_call_events_per_request" },
    { "tool_calls", "tool_calls_per_request" },
};
constexpr const char* kItlStats[] = { "p50", "p99" };

double numberAt(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : -1.0;
}

template <auto Field> std::optional<double> figure(const ComparedConfig& config)
{
    return config.reasoningTools ? (*config.reasoningTools).*Field : std::nullopt;
}

template <auto Field> std::optional<double> ratio(const ReasoningFigures::Ratios& ratios)
{
    return ratios.*Field;
}

template <LatencyStat Stat> std::optional<double> itl(const ComparedConfig& config)
{
    return config.value(LatencyMetric::Itl, Stat);
}

template <auto Stat> std::optional<double> itlNoTools(const ComparedConfig& config)
{
    if (!config.reasoningTools || !config.reasoningTools->itlNoTools)
        return std::nullopt;
    return (*config.reasoningTools->itlNoTools).*Stat;
}

} // namespace

using Ratios = ReasoningFigures::Ratios;

const ReasoningColumn kReasoningColumns[9] = {
    { "reasoning tok/req", "reasoning_tokens_per_request", nullptr, 1, &figure<&ReasoningFigures::reasoningTokens>,
        &ratio<&Ratios::reasoningTokens> },
    { "answer tok/req", "answer_tokens_per_request", nullptr, 1, &figure<&ReasoningFigures::answerTokens>,
        &ratio<&Ratios::answerTokens> },
    { "reasoning share %", "reasoning_share", nullptr, 1, &figure<&ReasoningFigures::reasoningShare>,
        &ratio<&Ratios::reasoningShare> },
    { "tool-call events/req", "tool_call_events_per_request", nullptr, 1, &figure<&ReasoningFigures::toolCallEvents>,
        &ratio<&Ratios::toolCallEvents> },
    { "tool calls/req", "tool_calls_per_request", nullptr, 2, &figure<&ReasoningFigures::toolCalls>,
        &ratio<&Ratios::toolCalls> },
    { "ITL p50 ms", "itl_ms", "p50", 2, &itl<LatencyStat::P50>, nullptr },
    { "ITL p50 ms no tools", "itl_ms_no_tools", "p50", 2, &itlNoTools<&SummaryDistribution::p50>,
        &ratio<&Ratios::itlNoToolsP50> },
    { "ITL p99 ms", "itl_ms", "p99", 2, &itl<LatencyStat::P99>, nullptr },
    { "ITL p99 ms no tools", "itl_ms_no_tools", "p99", 2, &itlNoTools<&SummaryDistribution::p99>,
        &ratio<&Ratios::itlNoToolsP99> },
};

json reasoningFigures(const json& summary)
{
    if (!summary.is_object())
        return nullptr;
    const double ok = numberAt(summary, "ok");
    json out = json::object();
    if (ok > 0) {
        for (const PerRequest& p : kPerRequest)
            if (const double total = numberAt(summary, p.total); total >= 0)
                out[p.key] = total / ok;
    }
    // Over every generated token: a tool-calling answer streams its tokens as tool-call deltas, not content.
    const double reasoning = numberAt(summary, "reasoning_tokens");
    const double generated = reasoning + std::max(0.0, numberAt(summary, "answer_tokens"))
        + std::max(0.0, numberAt(summary, "tool_call_events"));
    if (reasoning >= 0 && generated > 0)
        out["reasoning_share"] = reasoning / generated;
    if (const auto itl = summary.find("itl_ms_no_tools"); itl != summary.end() && itl->is_object())
        out["itl_ms_no_tools"] = *itl;
    if (out.empty())
        return nullptr;
    out["ok"] = ok;
    return out;
}

void addReasoningRatios(json& figures, const json& baseFigures)
{
    if (!figures.is_object() || !baseFigures.is_object())
        return;
    json ratio = json::object();
    for (const char* key : { "reasoning_tokens_per_request", "answer_tokens_per_request", "reasoning_share",
             "tool_call_events_per_request", "tool_calls_per_request" }) {
        const double value = numberAt(figures, key), base = numberAt(baseFigures, key);
        if (value >= 0 && base > 0)
            ratio[key] = value / base;
    }
    const json itl = figures.value("itl_ms_no_tools", json()), baseItl = baseFigures.value("itl_ms_no_tools", json());
    if (itl.is_object() && baseItl.is_object())
        for (const char* stat : kItlStats)
            if (const double value = numberAt(itl, stat), base = numberAt(baseItl, stat); value >= 0 && base > 0)
                ratio["itl_ms_no_tools"][stat] = value / base;
    figures["ratio"] = ratio;
}

bool armHasReasoning(const ComparedArm& arm)
{
    return std::any_of(arm.configs.begin(), arm.configs.end(),
        [](const ComparedConfig& config) { return config.reasoningTools.has_value(); });
}

namespace {

std::optional<double> ratioOf(const ComparedConfig& config, const ReasoningColumn& c)
{
    if (!c.ratio || !config.reasoningTools || !config.reasoningTools->ratio)
        return std::nullopt;
    return c.ratio(*config.reasoningTools->ratio);
}

} // namespace

QString reasoningCell(const ComparedConfig& config, const ReasoningColumn& c, bool isBaseline)
{
    const std::optional<double> value = c.value(config);
    if (!value)
        return QStringLiteral("n/a");
    const bool share = std::string_view(c.key) == "reasoning_share";
    QString text = QString::number(*value * (share ? 100 : 1), 'f', c.decimals);
    if (const std::optional<double> r = isBaseline ? std::nullopt : ratioOf(config, c))
        text += QStringLiteral(" (%1x)").arg(*r, 0, 'f', 2);
    return text;
}

QString reasoningMarkdown(const ComparedArm& arm)
{
    if (!armHasReasoning(arm))
        return {};
    QStringList header { QStringLiteral("config") };
    for (const ReasoningColumn& c : kReasoningColumns)
        header << QString::fromLatin1(c.title);
    QString out = QStringLiteral("\nReasoning and tool calls:\n\n| %1 |\n|%2\n")
                      .arg(header.join(QStringLiteral(" | ")), QStringLiteral("---|").repeated(header.size()));
    for (const ComparedConfig& config : arm.configs) {
        QStringList row { config.config };
        for (const ReasoningColumn& c : kReasoningColumns)
            row << reasoningCell(config, c, config.config == arm.baseline);
        out += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
    }
    return out
        + QStringLiteral(
            "\nPer ok request; reasoning share = reasoning / (reasoning + answer + tool-call) tokens; \"no tools\": "
            "ITL over each request's gaps before its first tool-call delta. Ratios against %1, no "
            "interval.\n")
              .arg(arm.baseline);
}

QString reasoningCsv(const ComparedConfig& config, const std::string& prefix)
{
    if (!config.reasoningTools)
        return {};
    QString out;
    for (const ReasoningColumn& c : kReasoningColumns) {
        if (std::string_view(c.key) == "itl_ms")
            continue; // its own rows come before
        const std::optional<double> value = c.value(config);
        if (!value)
            continue;
        out += QString::asprintf("%s%s,%s,%.4f,", prefix.c_str(), c.key, c.stat ? c.stat : "", *value);
        const std::optional<double> r = ratioOf(config, c);
        out += r ? QString::asprintf("%.4f,,,\n", *r) : QStringLiteral(",,,\n");
    }
    return out;
}

} // namespace ks
