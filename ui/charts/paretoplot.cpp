#include "charts/paretoplot.h"

#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ks {

ParetoPlot::ParetoPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(300, 220);
    m_heading = setUpPlotFrame(m_plot, this);
    m_heading->setText(tr("Pareto: no points yet"));
    m_leftOut = addFootnote(m_plot, this);
    m_plot->legend->setWrap(4);
}

void ParetoPlot::setChart(const QString& title, const ParetoChart& chart)
{
    m_chart = chart;
    m_heading->setText(title);
    rebuild();
}

void ParetoPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    const QColor text = chartColors(palette()).text;
    m_plot->xAxis->setLabel(m_chart.xTitle());
    m_plot->yAxis->setLabel(m_chart.yTitle());
    QStringList arms;
    for (const ParetoPoint& p : m_chart.points)
        if (!arms.contains(p.arm))
            arms << p.arm;
    // The front first, beneath the points: a line through the non-dominated ones in x order.
    std::vector<const ParetoPoint*> front;
    for (const ParetoPoint& p : m_chart.points)
        if (p.onFront)
            front.push_back(&p);
    std::sort(front.begin(), front.end(), [](const ParetoPoint* a, const ParetoPoint* b) { return a->x < b->x; });
    QCPGraph* frontLine = m_plot->addGraph();
    frontLine->setName(tr("Pareto front"));
    frontLine->setPen(QPen(text, 1.6, Qt::DashLine));
    for (const ParetoPoint* p : front)
        frontLine->addData(p->x, p->y);
    for (int i = 0; i < arms.size(); ++i) {
        const QColor color = configColor(i);
        QColor faded = color;
        faded.setAlpha(70);
        QCPGraph* onFront = m_plot->addGraph();
        onFront->setName(arms[i]);
        onFront->setLineStyle(QCPGraph::lsNone);
        onFront->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(outlineOf(color), 1.2), color, 10));
        QCPGraph* dominated = m_plot->addGraph();
        dominated->removeFromLegend();
        dominated->setLineStyle(QCPGraph::lsNone);
        dominated->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(faded, 1.0), faded, 8));
        for (const ParetoPoint& p : m_chart.points)
            if (p.arm == arms[i])
                (p.onFront ? onFront : dominated)->addData(p.x, p.y);
    }
    for (const ParetoPoint* p : front) {
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(p->x, p->y);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(QMargins(6, 0, 0, 4));
        label->setColor(text);
        label->setText(arms.size() > 1 ? p->config + QStringLiteral(" · ") + p->arm : p->config);
    }
    QStringList leftOut;
    for (const ParetoLeftOut& l : m_chart.leftOut)
        leftOut << tr("%1 / %2 (%3)").arg(l.config, l.arm, l.reason);
    QString caption = tr("Faded: dominated (another point is at least as good on both axes, better on one).");
    if (!leftOut.isEmpty())
        caption += QLatin1Char(' ') + tr("Not drawn: %1").arg(leftOut.join(QStringLiteral("; ")));
    m_leftOut->setText(caption);
    double maxX = 1, minY = 0, maxY = 1;
    for (std::size_t i = 0; i < m_chart.points.size(); ++i) {
        const ParetoPoint& p = m_chart.points[i];
        maxX = std::max(maxX, p.x);
        minY = i == 0 ? p.y : std::min(minY, p.y);
        maxY = i == 0 ? p.y : std::max(maxY, p.y);
    }
    // x from 0, with room on the right for the front's labels; y around the points (the axis
    // says where), since the speed per user often moves by a few per cent between configurations.
    const double span = std::max(maxY - minY, std::max(std::abs(maxY), 1.0) * 0.02);
    m_plot->xAxis->setRange(0, maxX * 1.25);
    m_plot->yAxis->setRange(std::max(0.0, minY - span * 0.3), maxY + span * 0.3);
}

void ParetoPlot::replot()
{
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setExportTitle(const QString& title)
{
    m_heading->setText(title);
}

void ParetoPlot::renderTo(QPaintDevice* device, const QSize& size)
{
    renderPlot(m_plot, device, size);
}

} // namespace ks
