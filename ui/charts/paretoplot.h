#pragma once

#include "charts/exportablechart.h"
#include "compare/paretofront.h"

#include <QWidget>

class QCustomPlot;
class QCPTextElement;

namespace ks {

/// The trade-off between throughput and each user's speed: every
/// configuration × arm as a point (one colour per arm), the Pareto front as a
/// line with each of its points labelled, dominated points faded. Points come
/// from the core's paretoChart().
class ParetoPlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    explicit ParetoPlot(QWidget* parent = nullptr);

    void setChart(const QString& title, const ParetoChart& chart);
    const ParetoChart& chart() const { return m_chart; }
    void replot();

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

private:
    void rebuild();

    QCustomPlot* m_plot;
    QCPTextElement* m_heading;
    QCPTextElement* m_leftOut;
    ParetoChart m_chart;
};

} // namespace ks
