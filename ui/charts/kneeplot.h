#pragma once

#include "charts/exportablechart.h"
#include "metrics/runsummary.h"
#include "metrics/sweepcapacity.h"

#include <QColor>
#include <QHash>
#include <QWidget>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPTextElement;

namespace ks {

/// The knee of a sweep: TTFT p50 and p99 (left axis, logarithmic) and TPOT p50
/// (right axis) against the achieved request rate (rate sweeps) or the
/// concurrency, one colour per configuration, the SLO as horizontal lines and
/// each configuration's capacity circled. Grows a point per finished step.
class KneePlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    explicit KneePlot(QWidget* parent = nullptr);

    /// Starts over for one sweep arm (`overRate`: x is achieved req/s).
    void reset(const QString& title, bool overRate, const Slo& slo);
    /// Adds a finished step; the configuration's capacity is recomputed from its points.
    void addPoint(const SweepPoint& point, const QColor& color);
    void replot();

    QString arm() const { return m_title; }
    QStringList configs() const { return m_order; }
    /// x/y of one configuration's line: "ttft_p50", "ttft_p99" or "tpot_p50".
    QVector<QPointF> line(const QString& config, const QString& metric) const;
    std::optional<double> capacity(const QString& config) const;

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

private:
    void rebuild();
    double xOf(const SweepPoint& point) const;

    QCustomPlot* m_plot;
    QCPTextElement* m_heading;
    QCPTextElement* m_capacityLine; ///< under the legend: each circled step, offered and achieved
    QString m_title;
    bool m_overRate = true;
    Slo m_slo;
    QStringList m_order;
    QHash<QString, QColor> m_colors;
    QHash<QString, std::vector<SweepPoint>> m_points;
};

} // namespace ks
