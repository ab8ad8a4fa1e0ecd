#pragma once

#include "compare/comparisontypes.h"
#include "metrics/bootstrap.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <vector>

namespace ks {

/// One configuration's point on a knob-response chart.
struct KnobPoint {
    QString config;
    nlohmann::json value; ///< the knob's value as the run line has it (number or string)
    double x = 0; ///< numeric knob: the value; categorical: the category's index
    double y = 0; ///< the metric, exactly as `compare --json` gives it
    std::optional<Interval> ci95; ///< compare's 95 % interval of the figure, when it has one
    QString method; ///< what the interval covers: "repeats" (t-interval over repeats) or compare's ci95 method
};

/// One line (or bar group) of the chart: one arm, and one value of each other knob that varies.
struct KnobSeries {
    QString arm;
    QString group; ///< "model=sim-8b, block_size=16", or empty when no other knob varies
    std::vector<KnobPoint> points; ///< numeric knob: sorted by value; categorical: in category order
    QString label() const { return group.isEmpty() ? arm : arm + QStringLiteral(" · ") + group; }
};

/// A configuration (of an arm) left off the chart, and why: no value for the
/// knob, or no finite figure for the metric. Never drawn as 0.
struct KnobLeftOut {
    QString config;
    QString arm;
    QString reason;
};

/// The knob-response chart's data (`export --chart knob:NAME`), from compareRuns().
struct KnobResponse {
    QString knob; ///< a knob name, or "model"
    QString metric; ///< "ttft_ms.p99", "req_per_s", "capacity", "drift", ...
    QString metricTitle; ///< "TTFT p99 (ms)"
    bool numeric = true; ///< false: ordered bars, one per category
    bool logX = false; ///< numeric values spanning more than 8x (all positive)
    QStringList categories; ///< categorical knob: values in first-seen order
    std::vector<KnobSeries> series;
    std::vector<KnobLeftOut> leftOut;
    std::optional<double> slo; ///< the SLO bound on this metric's key (at p99), when the experiment sets one
    bool higherIsBetter = false;
};

/// The metrics a knob-response chart can show (`--metric`).
QStringList knobMetrics();
/// Knob names that have a value in at least one configuration of `compare` (`model` included when set).
QStringList knobNames(const Comparison& compare);
/// Knobs (and `model`) whose value differs between configurations.
QStringList varyingKnobs(const Comparison& compare);

/// Builds the chart for `knob` and `metric` from compareRuns() (whose
/// configurations carry `knobs` and `model`). `drift`: probe changes per
/// configuration, for metric "drift" (one series, arm "probes"). Returns false
/// with `error` for an unknown knob (listing the file's), a knob with one
/// value, or an unknown metric.
bool knobResponse(const Comparison& compare, const QString& knob, const QString& metric, KnobResponse* out,
    QString* error, const std::map<QString, int>* drift = nullptr);

/// `export --points` for a knob chart (docs/formats.md, "Chart points").
nlohmann::json knobResponseJson(const KnobResponse& r);

} // namespace ks
