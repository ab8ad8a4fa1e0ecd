#pragma once

#include "charts/exportablechart.h"
#include "library/runtrend.h"

#include <QWidget>

class QCustomPlot;
class QCPTextElement;

namespace ks {

/// One configuration's figure across catalogued runs (library/runtrend.h): a
/// point per run, oldest left, with its 95 % interval as an error bar, each run
/// labelled by its date and server version, and a dashed line where the
/// figure moved to a new level.
class TrendPlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    explicit TrendPlot(QWidget* parent = nullptr);

    void setTrend(const RunTrend& trend);
    const RunTrend& trend() const { return m_trend; }

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

private:
    QCustomPlot* m_plot;
    QCPTextElement* m_heading;
    QCPTextElement* m_footnote;
    RunTrend m_trend;
};

/// Writes `trend` as a chart to `path` (PNG, SVG or PDF by its suffix), in the
/// export palette; what the Runs page's Export trend and the HTML report draw.
bool exportTrendChart(const RunTrend& trend, const QString& path, const QSize& size, QString* error);

} // namespace ks
