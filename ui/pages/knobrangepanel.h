#pragma once

#include "compare/paretofront.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QStackedWidget;

namespace ks {

class HeatmapPlot;
class KnobPlot;
class ParetoPlot;
struct LoadedRunFile;

/// The knob's whole range on the Compare page: the knob-response chart (a
/// knob and a metric chosen), the Pareto chart (tokens/s per user, or TTFT
/// p99, against throughput), both from the core's figures for the loaded file,
/// or, for a search over several knobs, its heatmap over two of them.
class KnobRangePanel : public QWidget {
    Q_OBJECT
public:
    explicit KnobRangePanel(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const LoadedRunFile> result);
    /// True when a knob varies across configurations or there are 2 or more Pareto points.
    bool hasKnobChart() const;
    bool hasPareto() const;
    /// True when the file holds a search over several knobs.
    bool hasHeatmap() const;

    std::shared_ptr<const LoadedRunFile> result() const { return m_result; }
    KnobPlot* knobPlot() const { return m_knobPlot; }
    ParetoPlot* paretoPlot() const { return m_paretoPlot; }
    /// Shows the knob chart for `knob` and `metric`; false with `error` when they do not fit the file.
    bool showKnob(const QString& knob, const QString& metric, QString* error);
    void showPareto(ParetoY y);
    /// Shows the search's heatmap over the two knobs chosen; false with `error` when there is none.
    bool showHeatmap(QString* error);
    HeatmapPlot* heatmapPlot() const { return m_heatmapPlot; }

private:
    void refresh();

    std::shared_ptr<const LoadedRunFile> m_result;
    QComboBox* m_chart;
    QComboBox* m_knob;
    QComboBox* m_metric;
    QComboBox* m_y;
    QComboBox* m_heatX; ///< the heatmap's two knobs
    QComboBox* m_heatY;
    QHash<QWidget*, QLabel*> m_labelOf; ///< each chooser's label, shown and hidden with it
    QStackedWidget* m_stack;
    KnobPlot* m_knobPlot;
    ParetoPlot* m_paretoPlot;
    HeatmapPlot* m_heatmapPlot;
    bool m_filling = false;
};

} // namespace ks
