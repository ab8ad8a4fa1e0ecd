#include "charts/timeseriesplot.h"

#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ks {

TimeSeriesPlot::TimeSeriesPlot(const QString& title, const QString& yLabel, QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_title(title)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumHeight(150);

    m_heading = setUpPlotFrame(m_plot, this);
    m_heading->setText(title);
    showLegend(m_plot, false); // on screen the page's own legend names the lines; an export draws this one
    m_plot->xAxis->setLabel(QStringLiteral("experiment time (s)"));
    m_plot->yAxis->setLabel(yLabel);
    m_plot->yAxis->setRangeLower(0);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->setToolTip(QStringLiteral("Drag to pan, wheel to zoom, double-click to reset"));
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { showValueAt(e->pos()); });
    connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_userZoomed = true; });
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_userZoomed = true; });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &TimeSeriesPlot::resetZoom);
}

void TimeSeriesPlot::ensureSeries(const QString& key, const QString& name, const QPen& pen, bool rightAxis)
{
    if (m_graphs.contains(key))
        return;
    QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, rightAxis ? m_plot->yAxis2 : m_plot->yAxis);
    graph->setName(name);
    graph->setPen(pen);
    graph->setAdaptiveSampling(true);
    if (rightAxis)
        m_plot->yAxis2->setVisible(true);
    m_graphs.insert(key, graph);
}

void TimeSeriesPlot::append(const QString& key, double x, double y)
{
    if (QCPGraph* graph = m_graphs.value(key)) {
        graph->addData(x, y);
        m_dirty = true;
    }
}

void TimeSeriesPlot::setSeriesVisible(const QString& key, bool visible)
{
    if (QCPGraph* graph = m_graphs.value(key); graph && graph->visible() != visible) {
        graph->setVisible(visible);
        m_dirty = true;
    }
}

void TimeSeriesPlot::setSeriesBehind(const QString& key)
{
    if (QCPGraph* graph = m_graphs.value(key))
        graph->setLayer(QStringLiteral("background"));
}

void TimeSeriesPlot::truncateSeries(const QString& key, double x)
{
    if (QCPGraph* graph = m_graphs.value(key)) {
        graph->data()->removeAfter(x - 1e-9); // removeAfter keeps the key itself
        m_dirty = true;
    }
}

void TimeSeriesPlot::removeSeries(const QString& prefix)
{
    for (auto it = m_graphs.begin(); it != m_graphs.end();) {
        if (it.key().startsWith(prefix)) {
            m_plot->removeGraph(it.value());
            it = m_graphs.erase(it);
            m_dirty = true;
        } else {
            ++it;
        }
    }
}

void TimeSeriesPlot::setRightAxisLabel(const QString& label)
{
    m_plot->yAxis2->setLabel(label);
}

namespace {
double labelY(int row)
{
    return 0.02 + 0.16 * (row % 3);
}
} // namespace

void TimeSeriesPlot::addBoundary(double x, const QString& label, const QColor& color, int row)
{
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    if (label.isEmpty()) { // a step within a labelled arm: a lighter mark, no text to collide
        QColor light = color;
        light.setAlphaF(0.45);
        line->setPen(QPen(light, 1, Qt::DotLine));
        m_dirty = true;
        return;
    }
    line->setPen(QPen(color, 1, Qt::DashLine));
    auto* text = new QCPItemText(m_plot);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(x, labelY(row));
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setText(QStringLiteral(" ") + label);
    text->setColor(color);
    text->setClipToAxisRect(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    text->setFont(small);
    m_dirty = true;
}

void TimeSeriesPlot::addNote(double x, const QString& text, int row)
{
    auto* note = new QCPItemText(m_plot);
    note->position->setTypeX(QCPItemPosition::ptPlotCoords);
    note->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(x, labelY(row) + 0.07);
    note->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    note->setText(QStringLiteral(" ⚠ ") + text);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    note->setFont(small);
    note->setColor(QColor(200, 120, 0));
    note->setClipToAxisRect(true);
    m_dirty = true;
}

void TimeSeriesPlot::clear()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->yAxis2->setVisible(false);
    m_graphs.clear();
    m_userZoomed = false;
    m_dirty = true;
}

void TimeSeriesPlot::replot()
{
    if (!m_dirty || !isVisible())
        return;
    m_dirty = false;
    if (!m_userZoomed)
        fitToData();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimeSeriesPlot::fitToData()
{
    m_plot->rescaleAxes(true); // visible series only
    m_plot->xAxis->setRangeLower(std::min(0.0, m_plot->xAxis->range().lower)); // keep the first arm's marker
    for (QCPAxis* axis : { m_plot->yAxis, m_plot->yAxis2 }) {
        QCPRange r = axis->range();
        axis->setRange(0, r.upper > 0 ? r.upper * 1.08 : 1); // latency and counts start at zero
    }
}

void TimeSeriesPlot::resetZoom()
{
    m_userZoomed = false;
    m_dirty = true;
    replot();
}

QVector<QPointF> TimeSeriesPlot::points(const QString& key) const
{
    QVector<QPointF> out;
    if (const QCPGraph* graph = m_graphs.value(key)) {
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            if (!std::isnan(it->value)) // NaN: a gap in the line (a window without completions)
                out.push_back({ it->key, it->value });
    }
    return out;
}

void TimeSeriesPlot::showValueAt(const QPoint& position)
{
    const double x = m_plot->xAxis->pixelToCoord(position.x());
    QStringList lines;
    for (auto it = m_graphs.constBegin(); it != m_graphs.constEnd(); ++it) {
        const QCPGraph* graph = it.value();
        if (graph->data()->isEmpty() || !graph->visible())
            continue;
        auto point = graph->data()->findBegin(x, false);
        if (point == graph->data()->constEnd() || std::abs(point->key - x) > 2.0 || std::isnan(point->value))
            continue; // only series with a point within 2 s of the cursor
        lines << QStringLiteral("%1: %2").arg(graph->name(), QString::number(point->value, 'f', 1));
    }
    lines.sort();
    if (lines.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(position),
            QStringLiteral("t = %1 s\n").arg(x, 0, 'f', 1) + lines.join(QLatin1Char('\n')), m_plot);
}

} // namespace ks

namespace ks {

void TimeSeriesPlot::setExportTitle(const QString& title)
{
    m_heading->setText(title);
}

void TimeSeriesPlot::renderTo(QPaintDevice* device, const QSize& size)
{
    const bool legend = m_plot->legend->visible();
    QList<QCPGraph*> hidden;
    // A legend row per configuration (keys are "CONFIG/…"), as many columns as fit.
    QHash<QString, int> perConfig;
    const QFontMetrics metrics(m_plot->legend->font());
    int widest = 1;
    for (auto it = m_graphs.constBegin(); it != m_graphs.constEnd(); ++it) {
        if (!it.value()->visible() && it.value()->removeFromLegend()) {
            hidden << it.value();
            continue;
        }
        ++perConfig[it.key().section(QLatin1Char('/'), 0, 0)];
        widest = std::max(widest, metrics.horizontalAdvance(it.value()->name()));
    }
    int wrap = 1;
    for (int n : std::as_const(perConfig))
        wrap = std::max(wrap, n);
    const int itemWidth = widest + m_plot->legend->iconSize().width() + m_plot->legend->iconTextPadding() + 24;
    m_plot->legend->setWrap(std::clamp(size.width() / itemWidth, 1, wrap));
    // An exported chart explains its own lines, only those it draws (none: no legend).
    const bool drawn = m_plot->legend->itemCount() > 0;
    if (drawn)
        m_plot->legend->setFillOrder(m_plot->legend->fillOrder(), true); // lays the items out again at that wrap
    showLegend(m_plot, drawn);
    renderPlot(m_plot, device, size);
    for (QCPGraph* graph : std::as_const(hidden))
        graph->addToLegend();
    showLegend(m_plot, legend);
}

} // namespace ks
