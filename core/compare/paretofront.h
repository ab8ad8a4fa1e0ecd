#pragma once

#include "compare/comparisontypes.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// One configuration × arm (each sweep step is an arm of its own) on the Pareto chart.
struct ParetoPoint {
    QString config;
    QString arm;
    nlohmann::json knobs; ///< the configuration's knob values (and `model`)
    double x = 0; ///< aggregate output tokens/s, per GPU when `ParetoChart::gpus` > 0
    double y = 0; ///< output tokens/s per user (1000 / TPOT p50), or TTFT p99 in ms
    bool onFront = false;
};

/// Which figure is y: tokens/s per user (higher is better) or TTFT p99 (lower is better).
enum class ParetoY { TokensPerUser, TtftP99 };

struct ParetoLeftOut {
    QString config;
    QString arm;
    QString reason;
};

/// The Pareto chart's data (`export --chart pareto`).
struct ParetoChart {
    ParetoY yKind = ParetoY::TokensPerUser;
    int gpus = 0; ///< GPUs in the experiment's environment; 0: unknown, x is the aggregate
    std::vector<ParetoPoint> points; ///< file order; `onFront` marks the non-dominated ones
    std::vector<ParetoLeftOut> leftOut;
    QString xTitle() const;
    QString yTitle() const;
};

/// Marks each point not dominated by another: one at least as good on both
/// axes and better on one. x is better higher; y higher (`yHigherIsBetter`) or
/// lower. Returns the front's indices, sorted by x.
std::vector<std::size_t> paretoFront(std::vector<ParetoPoint>& points, bool yHigherIsBetter);

/// Every configuration × arm of compareRuns() with finite figures (the
/// rest in `leftOut`), its front marked. `environment`: the experiment line's,
/// for the GPU count.
ParetoChart paretoChart(const Comparison& compare, const nlohmann::json& environment, ParetoY y);

/// Parses `--y`: "tpot" or "ttft_p99"; false for anything else.
bool parseParetoY(const QString& text, ParetoY* y);

/// `export --points` for a Pareto chart (docs/formats.md, "Chart points").
nlohmann::json paretoJson(const ParetoChart& chart);

} // namespace ks
