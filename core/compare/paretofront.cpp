#include "compare/paretofront.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace ks {

QString ParetoChart::xTitle() const
{
    return gpus > 0 ? QStringLiteral("output tokens/s per GPU (aggregate over %1 GPUs)").arg(gpus)
                    : QStringLiteral("output tokens/s (aggregate; GPU count unknown)");
}

QString ParetoChart::yTitle() const
{
    return yKind == ParetoY::TokensPerUser ? QStringLiteral("output tokens/s per user (1000 / TPOT p50)")
                                           : QStringLiteral("TTFT p99 (ms, lower is better)");
}

std::vector<std::size_t> paretoFront(std::vector<ParetoPoint>& points, bool yHigherIsBetter)
{
    auto atLeastAsGood = [&](const ParetoPoint& a, const ParetoPoint& b) {
        return a.x >= b.x && (yHigherIsBetter ? a.y >= b.y : a.y <= b.y);
    };
    std::vector<std::size_t> front;
    for (std::size_t i = 0; i < points.size(); ++i) {
        bool dominated = false;
        for (std::size_t j = 0; j < points.size() && !dominated; ++j)
            dominated = j != i && atLeastAsGood(points[j], points[i])
                && (points[j].x != points[i].x || points[j].y != points[i].y);
        points[i].onFront = !dominated;
        if (!dominated)
            front.push_back(i);
    }
    std::stable_sort(
        front.begin(), front.end(), [&](std::size_t a, std::size_t b) { return points[a].x < points[b].x; });
    return front;
}

bool parseParetoY(const QString& text, ParetoY* y)
{
    if (text == QLatin1String("tpot"))
        *y = ParetoY::TokensPerUser;
    else if (text == QLatin1String("ttft_p99"))
        *y = ParetoY::TtftP99;
    else
        return false;
    return true;
}

namespace {

std::optional<double> finite(std::optional<double> v)
{
    return v && std::isfinite(*v) ? v : std::nullopt;
}

} // namespace

ParetoChart paretoChart(const Comparison& compare, const nlohmann::json& environment, ParetoY yKind)
{
    ParetoChart chart;
    chart.yKind = yKind;
    if (environment.is_object())
        if (const auto gpus = environment.find("gpus"); gpus != environment.end() && gpus->is_array())
            chart.gpus = int(gpus->size());
    for (const ComparedArm& arm : compare) {
        if (arm.isSweep())
            continue; // its steps are arms of their own
        for (const ComparedConfig& c : arm.configs) {
            ParetoPoint p;
            p.config = c.config;
            p.arm = arm.arm;
            p.knobs = c.knobs.is_object() ? c.knobs : nlohmann::json::object();
            if (c.model)
                p.knobs["model"] = c.model->toStdString();
            const std::optional<double> tokens = finite(c.outTokPerS);
            const std::optional<double> y
                = finite(yKind == ParetoY::TokensPerUser ? c.value(LatencyMetric::Tpot, LatencyStat::P50)
                                                         : c.value(LatencyMetric::Ttft, LatencyStat::P99));
            if (!tokens || *tokens <= 0) {
                chart.leftOut.push_back({ p.config, arm.arm, QStringLiteral("no output tokens/s") });
                continue;
            }
            if (!y || (yKind == ParetoY::TokensPerUser && *y <= 0)) {
                chart.leftOut.push_back({ p.config, arm.arm,
                    yKind == ParetoY::TokensPerUser ? QStringLiteral("no TPOT p50") : QStringLiteral("no TTFT p99") });
                continue;
            }
            p.x = chart.gpus > 0 ? *tokens / chart.gpus : *tokens;
            p.y = yKind == ParetoY::TokensPerUser ? 1000.0 / *y : *y;
            chart.points.push_back(std::move(p));
        }
    }
    paretoFront(chart.points, yKind == ParetoY::TokensPerUser);
    return chart;
}

nlohmann::json paretoJson(const ParetoChart& chart)
{
    nlohmann::json points = nlohmann::json::array();
    nlohmann::json front = nlohmann::json::array();
    std::vector<ParetoPoint> copy = chart.points;
    for (std::size_t i : paretoFront(copy, chart.yKind == ParetoY::TokensPerUser))
        front.push_back(i);
    for (const ParetoPoint& p : chart.points)
        points.push_back({ { "config", p.config.toStdString() }, { "arm", p.arm.toStdString() }, { "knobs", p.knobs },
            { "x", p.x }, { "y", p.y }, { "front", p.onFront } });
    nlohmann::json leftOut = nlohmann::json::array();
    for (const ParetoLeftOut& l : chart.leftOut)
        leftOut.push_back({ { "config", l.config.toStdString() }, { "arm", l.arm.toStdString() },
            { "reason", l.reason.toStdString() } });
    return { { "chart", "pareto" }, { "x", chart.gpus > 0 ? "out_tok_per_s_per_gpu" : "out_tok_per_s" },
        { "gpus", chart.gpus },
        { "y", chart.yKind == ParetoY::TokensPerUser ? "out_tok_per_s_per_user" : "ttft_ms.p99" },
        { "x_title", chart.xTitle().toStdString() }, { "y_title", chart.yTitle().toStdString() }, { "points", points },
        { "front", front }, { "left_out", leftOut } };
}

} // namespace ks
