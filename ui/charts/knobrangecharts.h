#pragma once

// The Knob range charts drawn from a loaded run file alone, for the Compare
// page's Knob range tab, `knobscope export` and the HTML report: the knob
// response (a metric against one knob's values), the Pareto front, and a
// multi-knob search's heatmap. Like comparecharts.h, export needs a
// QApplication (the plots are QCustomPlot widgets), but no page.

#include "compare/paretofront.h"

#include <QSize>
#include <QString>

namespace ks {

class KnobPlot;
class ParetoPlot;
struct LoadedRunFile;

/// True when a knob varies across the file's configurations.
bool hasKnobChart(const LoadedRunFile& result);
/// True when 2 or more configuration-arms have output tokens/s and TPOT.
bool hasParetoChart(const LoadedRunFile& result);
/// True when the file holds a search over several knobs.
bool hasSearchHeatmap(const LoadedRunFile& result);

/// "experiment · what".
QString knobRangeTitle(const LoadedRunFile& result, const QString& what);

/// Fills `plot` with `metric` against `knob`; false with `error` when they do not fit the file.
bool drawKnobResponse(
    KnobPlot& plot, const LoadedRunFile& result, const QString& knob, const QString& metric, QString* error);
void drawPareto(ParetoPlot& plot, const LoadedRunFile& result, ParetoY y);

/// Writes the knob chart to `path` (PNG/SVG/PDF; empty: none) and its points, and those left out, to
/// `pointsPath` (JSON; empty: none).
bool exportKnobChart(const LoadedRunFile& result, const QString& knob, const QString& metric, const QString& path,
    const QString& pointsPath, const QSize& size, QString* error);
bool exportParetoChart(const LoadedRunFile& result, ParetoY y, const QString& path, const QString& pointsPath,
    const QSize& size, QString* error);

} // namespace ks
