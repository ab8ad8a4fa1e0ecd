#pragma once

#include "charts/exportablechart.h"

#include <QHash>
#include <QPen>
#include <QWidget>

class QCustomPlot;
class QCPTextElement;
class QCPGraph;
class QCPAxis;

namespace ks {

/// One live chart: named series of (seconds, value) points on QCustomPlot,
/// with adaptive sampling (so a million points redraw in milliseconds), arm
/// boundary markers, a hover read-out, and drag/wheel zoom that
/// resetZoom() undoes. Appending only marks the chart dirty; replot() draws it,
/// and the owner calls that on its own timer (batched updates: docs/architecture.md).
class TimeSeriesPlot : public QWidget, public ExportableChart {
    Q_OBJECT
public:
    TimeSeriesPlot(const QString& title, const QString& yLabel, QWidget* parent = nullptr);

    /// Creates the series on first use. `rightAxis` puts it on the second y axis.
    void ensureSeries(const QString& key, const QString& name, const QPen& pen, bool rightAxis = false);
    void append(const QString& key, double x, double y);
    void setRightAxisLabel(const QString& label);
    void setSeriesVisible(const QString& key, bool visible);
    /// Draws the series under every other one and the grid (a faded baseline).
    void setSeriesBehind(const QString& key);
    /// Drops the points at or after `x` (a baseline arm that ran longer than its live arm).
    void truncateSeries(const QString& key, double x);
    /// Removes every series whose key starts with `prefix`.
    void removeSeries(const QString& prefix);
    /// A dashed line at `x` with `label` at the top; `row` staggers labels of
    /// short arms so they do not overlap. An empty label draws a lighter dotted
    /// line without text (the steps of a sweep after its first).
    void addBoundary(double x, const QString& label, const QColor& color, int row = 0);
    /// A note under the label of the boundary at `x` (the gentle-arm warning).
    void addNote(double x, const QString& text, int row = 0);
    void clear();
    void replot();
    /// Scales the axes to the visible series, as replot() does on screen (export draws hidden charts).
    void fitToData();
    void resetZoom();
    QString title() const { return m_title; }

    /// The points of one series (not its gaps), for tests and export.
    QVector<QPointF> points(const QString& key) const;
    QStringList seriesKeys() const { return m_graphs.keys(); }
    QCustomPlot* plot() const { return m_plot; }

    void renderTo(QPaintDevice* device, const QSize& size) override;
    void setExportTitle(const QString& title) override;

private:
    void showValueAt(const QPoint& position);

    QCustomPlot* m_plot;
    QHash<QString, QCPGraph*> m_graphs;
    bool m_dirty = false;
    bool m_userZoomed = false;
    QCPTextElement* m_heading = nullptr;
    QString m_title;
};

} // namespace ks
