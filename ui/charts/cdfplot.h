#pragma once

#include "charts/exportablechart.h"

#include <QColor>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPTextElement;

namespace ks {

/// Overlaid empirical CDFs of one latency metric, one curve per configuration
/// (QCustomPlot). Curves keep at most 2000 points, taken at evenly spaced ranks.
class CdfPlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    explicit CdfPlot(QWidget* parent = nullptr);

    void clear(const QString& title, const QString& xLabel);
    /// `values` need not be sorted.
    void addCurve(const QString& name, const QColor& color, std::vector<double> values);
    void replot();
    int curveCount() const;

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    /// On screen the title wraps to the plot's width (tooltip: the full title); exports keep one line.
    void showWrappedTitle();

    QCustomPlot* m_plot;
    QCPTextElement* m_title;
    QString m_fullTitle;
};

} // namespace ks
