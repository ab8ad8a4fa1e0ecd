#pragma once

// The Compare page's charts drawn from a loaded run file alone, for the page
// and for `knobscope export`: the same functions fill the page's charts and
// the charts export writes, so a file exported without a window is the chart
// the page shows. The charts are widgets (QCustomPlot and Qt Charts draw
// through them), so export still needs a QApplication, but no page.

#include <QSize>
#include <QString>
#include <QStringList>

namespace ks {

class BarChart;
class CdfPlot;
class KneePlot;
struct LoadedRunFile;

/// Every arm's name, in the comparison's order.
QStringList comparedArms(const LoadedRunFile& result);

/// "experiment · arm · what · A vs B", marked when the arm's configurations ran different workloads.
QString compareChartTitle(const LoadedRunFile& result, const QString& arm, const QString& what);

/// True when `key` (ttft_ms, tpot_ms, itl_ms, e2e_ms, throughput, or a reasoning metric the comparison has)
/// can be charted for `result`.
bool compareChartHasMetric(const LoadedRunFile& result, const QString& key);

/// The grouped bars of one arm: p50/p95/p99 of a latency, req/s and goodput, or a reasoning metric's categories.
void drawMetricBars(BarChart& bars, const LoadedRunFile& result, const QString& arm, const QString& key);
/// The per-request CDF of a latency (empty for throughput and the per-request-less reasoning figures).
void drawMetricCdf(CdfPlot& cdf, const LoadedRunFile& result, const QString& arm, const QString& key);
/// The knee of a sweep arm (or of the sweep a step belongs to); false when `arm` is neither.
bool drawKnee(KneePlot& knee, const LoadedRunFile& result, const QString& arm);

/// Writes one chart of one arm to `path` (PNG/SVG/PDF by suffix): `chart` is ttft|tpot|itl|e2e|throughput|
/// reasoning|tool-calls|itl-no-tools (bars), cdf-ttft|cdf-tpot|cdf-itl|cdf-e2e|cdf-itl-no-tools, or knee.
bool exportCompareChart(const LoadedRunFile& result, const QString& chart, const QString& arm, const QString& path,
    const QSize& size, QString* error);

} // namespace ks
