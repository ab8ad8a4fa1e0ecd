#pragma once

class QCustomPlot;
class QCPTextElement;
class QWidget;

namespace ks {

/// The house frame of a QCustomPlot chart (as the knee chart draws it): axes in
/// the palette's text colour, dotted grid, a bold heading above and the legend
/// below the axes. Returns the heading.
QCPTextElement* setUpPlotFrame(QCustomPlot* plot, const QWidget* owner);

} // namespace ks
