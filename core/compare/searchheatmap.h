#pragma once

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// One probe of a search over several knobs, placed on two of them.
struct HeatmapProbe {
    double x = 0, y = 0;
    std::optional<double> objective; ///< none: no figure
    double low = 0, high = 0;
    bool feasible = true;
    bool plateau = false; ///< on the top's plateau
    bool recommended = false; ///< the search's `best`
    bool top = false; ///< the highest-scoring probe
    QString config;
    QString why; ///< why infeasible
};

/// A search's probes over two of its knobs, for the heatmap chart: the chart
/// colours each area of the two knobs' range by its nearest probe on their
/// scales (a nearest-probe field: probes are scattered, not on a grid), so
/// everything it shows was measured.
struct SearchHeatmap {
    QString xKnob, yKnob;
    bool xLog2 = false, yLog2 = false;
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;
    QString metric;
    bool minimize = false;
    /// With more than two knobs: the others, at the recommendation's values ("max_model_len = 4096"); only
    /// the probes made at those values are drawn.
    QStringList fixed;
    std::size_t leftOut = 0; ///< probes not drawn: another knob at another value
    std::vector<HeatmapProbe> probes;
    QString stop;
};

/// The knobs of a multi-knob `search` line, in its order; empty for a one-knob search or none.
QStringList searchKnobNames(const nlohmann::json& search);

/// The heatmap of `search` (a run file's closing `search` line, docs/formats.md) over `xKnob` and
/// `yKnob` (empty: the first two). None with `error` when the line is not a search over several knobs or
/// a knob is not one of its own.
std::optional<SearchHeatmap> searchHeatmap(
    const nlohmann::json& search, const QString& xKnob, const QString& yKnob, QString* error);

} // namespace ks
