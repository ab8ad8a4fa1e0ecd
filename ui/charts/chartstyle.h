#pragma once

#include "metrics/percentiles.h"

#include <QColor>
#include <QFont>
#include <QPen>

class QCustomPlot;
class QCPAxis;
class QCPTextElement;
class QPaintDevice;
class QPalette;
class QSize;
class QWidget;

namespace ks {

// The house look of every chart, in one place: the colour of each
// configuration, the pen of each percentile, and the frame (axes, grid,
// heading, legend) that every QCustomPlot chart and the Qt Charts bar chart
// draw around their series.

/// One colour per configuration, in order (Okabe-Ito: distinguishable with
/// the common colour-vision deficiencies). Every page uses the same order.
QColor configColor(int index);

/// How the Live charts draw each percentile: p50 solid, p95 dashed, p99 dotted.
struct PercentileStyle {
    const char* name;
    Qt::PenStyle pen;
    double width;
};
inline constexpr PercentileStyle kPercentiles[]
    = { { "p50", Qt::SolidLine, 2.0 }, { "p95", Qt::DashLine, 1.4 }, { "p99", Qt::DotLine, 1.4 } };

inline double percentileOf(const PercentileSummary& s, int i)
{
    return i == 0 ? s.p50 : i == 1 ? s.p95 : s.p99;
}

/// The colours a chart's frame takes from the system's light or dark palette:
/// text, axes and ticks in `text`, a dotted `grid`, on `background`.
struct ChartColors {
    QColor text;
    QColor grid;
    QColor background;
};
ChartColors chartColors(const QPalette& palette);
/// The colours of a chart exported for a document: dark on white, whatever the system's palette.
ChartColors documentColors();

/// The heading of every chart: the owner's font, bold.
QFont headingFont(const QFont& base);
/// A dotted grid line.
QPen gridPen(const ChartColors& colors);
/// A target line such as an SLO: dash-dotted, in the text colour.
QPen targetPen(const ChartColors& colors);
/// The outline of a bar, a marker or a circle in `color`.
QColor outlineOf(const QColor& color);

/// Gives `axis` the house look: base line, ticks and labels in the text
/// colour, a dotted grid.
void styleAxis(QCPAxis* axis, const ChartColors& colors);

/// The house frame of a QCustomPlot chart: background, all four axes styled,
/// a bold heading above the axes (row 0), the legend below them (row 2,
/// without a border, filled a row at a time) and drag and wheel zoom. Returns
/// the heading.
QCPTextElement* setUpPlotFrame(QCustomPlot* plot, const QWidget* owner);

/// Shows the legend below the axes, or hides it and gives its row back to the axes.
void showLegend(QCustomPlot* plot, bool shown);

/// A line of text under the legend (row 3), such as what a chart left out.
QCPTextElement* addFootnote(QCustomPlot* plot, const QWidget* owner);

/// A horizontal target line at `value` on `valueAxis` with `text` above it,
/// at the right end (labelRight) or the left end of the axis rect.
void addTargetLine(QCustomPlot* plot, QCPAxis* valueAxis, double value, const QString& text, bool labelRight);

/// Draws `plot` at `size` onto `device`, as every QCustomPlot chart exports.
void renderPlot(QCustomPlot* plot, QPaintDevice* device, const QSize& size);

} // namespace ks
