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

const json* figureOf(const json& config, const ReasoningColumn& c)
{
    const json* holder = &config;
    if (std::string_view(c.key) != "itl_ms") {
        const auto figures = config.find("reasoning_tools");
        if (figures == config.end() || !figures->is_object())
            return nullptr;
        holder = &*figures;
    }
    const auto v = holder->find(c.key);
    if (v == holder->end() || v->is_null())
        return nullptr;
    if (!c.stat)
        return v->is_number() ? &*v : nullptr;
    const auto stat = v->find(c.stat);
    return stat != v->end() && stat->is_number() ? &*stat : nullptr;
}

const json* ratioOf(const json& config, const ReasoningColumn& c)
{
    const auto figures = config.find("reasoning_tools");
    if (figures == config.end() || !figures->is_object() || !figures->contains("ratio"))
        return nullptr;
    const json& ratio = (*figures)["ratio"];
    const auto v = ratio.find(c.key);
    if (v == ratio.end())
        return nullptr;
    if (!c.stat)
        return v->is_number() ? &*v : nullptr;
    const auto stat = v->find(c.stat);
    return stat != v->end() && stat->is_number() ? &*stat : nullptr;
}

} // namespace

const ReasoningColumn kReasoningColumns[9] = {
    { "reasoning tok/req", "reasoning_tokens_per_request", nullptr, 1 },
    { "answer tok/req", "answer_tokens_per_request", nullptr, 1 },
    { "reasoning share %", "reasoning_share", nullptr, 1 },
    { "tool-call events/req", "tool_call_events_per_request", nullptr, 1 },
    { "tool calls/req", "tool_calls_per_request", nullptr, 2 },
    { "ITL p50 ms", "itl_ms", "p50", 2 },
    { "ITL p50 ms no tools", "itl_ms_no_tools", "p50", 2 },
    { "ITL p99 ms", "itl_ms", "p99", 2 },
    { "ITL p99 ms no tools", "itl_ms_no_tools", "p99", 2 },
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

bool armHasReasoning(const json& arm)
{
    const auto configs = arm.find("configs");
    if (configs == arm.end() || !configs->is_array())
        return false;
    for (const json& config : *configs)
        if (config.contains("reasoning_tools") && config["reasoning_tools"].is_object())
            return true;
    return false;
}

QString reasoningCell(const json& config, const ReasoningColumn& c, bool isBaseline)
{
    const json* value = figureOf(config, c);
    if (!value)
        return QStringLiteral("n/a");
    const bool share = std::string_view(c.key) == "reasoning_share";
    QString text = QString::number(value->get<double>() * (share ? 100 : 1), 'f', c.decimals);
    const json* ratio = isBaseline ? nullptr : ratioOf(config, c);
    if (ratio)
        text += QStringLiteral(" (%1x)").arg(ratio->get<double>(), 0, 'f', 2);
    return text;
}

QString reasoningMarkdown(const json& arm)
{
    if (!armHasReasoning(arm))
        return {};
    QStringList header { QStringLiteral("config") };
    for (const ReasoningColumn& c : kReasoningColumns)
        header << QString::fromLatin1(c.title);
    QString out = QStringLiteral("\nReasoning and tool calls:\n\n| %1 |\n|%2\n")
                      .arg(header.join(QStringLiteral(" | ")), QStringLiteral("---|").repeated(header.size()));
    const json baseline = arm.value("baseline", json());
    for (const json& config : arm["configs"]) {
        QStringList row { QString::fromStdString(config.value("config", std::string())) };
        for (const ReasoningColumn& c : kReasoningColumns)
            row << reasoningCell(config, c, config.value("config", json()) == baseline);
        out += QStringLiteral("| %1 |\n").arg(row.join(QStringLiteral(" | ")));
    }
    return out
        + QStringLiteral(
            "\nPer ok request; reasoning share = reasoning / (reasoning + answer + tool-call) tokens; \"no tools\": "
            "ITL over each request's gaps before its first tool-call delta. Ratios against %1, no "
            "interval.\n")
              .arg(QString::fromStdString(baseline.is_string() ? baseline.get<std::string>() : std::string()));
}

QString reasoningCsv(const json& config, const std::string& prefix)
{
    const auto figures = config.find("reasoning_tools");
    if (figures == config.end() || !figures->is_object())
        return {};
    QString out;
    for (const ReasoningColumn& c : kReasoningColumns) {
        if (std::string_view(c.key) == "itl_ms")
            continue; // its own rows come before
        const json* value = figureOf(config, c);
        if (!value)
            continue;
        const json* ratio = ratioOf(config, c);
        out += QString::asprintf("%s%s,%s,%.4f,", prefix.c_str(), c.key, c.stat ? c.stat : "", value->get<double>());
        out += ratio ? QString::asprintf("%.4f,,,\n", ratio->get<double>()) : QStringLiteral(",,,\n");
    }
    return out;
}

} // namespace ks
