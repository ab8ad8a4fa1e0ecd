#pragma once

#include "charts/exportablechart.h"
#include "compare/searchheatmap.h"

#include <QWidget>

class QCustomPlot;
class QCPTextElement;
class QCPColorMap;
class QCPColorScale;

namespace ks {

/// A search over several knobs as a heatmap of its objective over two of
/// them (SearchHeatmap): each area of the range takes the colour of its
/// nearest probe on the knobs' scales, each probe is a marker with its figure,
/// the recommendation ringed, the top starred, the plateau boxed, infeasible
/// probes crossed over a hatched area.
class HeatmapPlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    explicit HeatmapPlot(QWidget* parent = nullptr);

    void setHeatmap(const QString& title, const SearchHeatmap& map);
    const SearchHeatmap& heatmap() const { return m_map; }
    void replot();

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

private:
    void rebuild();
    void fillField(double lowest, double highest);

    QCustomPlot* m_plot;
    QCPTextElement* m_heading;
    QCPTextElement* m_footnote;
    QCPColorMap* m_field = nullptr;
    QCPColorScale* m_scale = nullptr;
    SearchHeatmap m_map;
};

} // namespace ks
