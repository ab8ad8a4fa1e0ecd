#pragma once

#include "charts/exportablechart.h"

#include <QColor>
#include <QVector>
#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace ks {

struct ChartColors;

/// Grouped bars (one set per configuration, one group per category such as
/// p50/p95/p99). The only place that knows Qt Charts, which is deprecated from
/// Qt 6.10: replacing it with Qt Graphs changes this file alone.
class BarChart : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    struct Set {
        QString name;
        QColor color;
        QVector<double> values;
    };

    explicit BarChart(QWidget* parent = nullptr);
    ~BarChart() override;

    void setData(const QString& title, const QStringList& categories, const QVector<Set>& sets, const QString& yLabel);
    const QVector<Set>& sets() const { return m_sets; }
    QString title() const;

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    /// On screen the title wraps to the view's width (tooltip: the full title);
    /// exports keep the one-line title.
    void showWrappedTitle();
    /// The house look (see chartstyle.h) in `colors`, over what the Qt Charts theme set.
    void applyStyle(const ChartColors& colors);

    QChartView* m_view;
    QChart* m_chart;
    QVector<Set> m_sets;
    QString m_fullTitle;
};

} // namespace ks
