#pragma once

// The Drift page's counts chart (probes changed per configuration: within a
// run, across a restart, across configurations, any), drawn from a loaded run
// file alone for the page, `knobscope export --chart drift` and the HTML report.

#include <QSize>
#include <QString>

namespace ks {

class BarChart;
struct LoadedRunFile;

/// Fills `bars`; empties it when the file has no probe passes.
void drawDriftCounts(BarChart& bars, const LoadedRunFile& result);
/// Writes the chart to `path` (PNG/SVG/PDF by suffix); false with `error` when the file has no probe passes.
bool exportDriftCounts(const LoadedRunFile& result, const QString& path, const QSize& size, QString* error);

} // namespace ks
