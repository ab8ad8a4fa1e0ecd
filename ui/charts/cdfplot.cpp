#include "charts/cdfplot.h"

#include "charts/chartstyle.h"
#include "charts/titlewrap.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

namespace ks {

CdfPlot::CdfPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(300, 220);
    m_title = setUpPlotFrame(m_plot, this);
    m_plot->legend->setWrap(4);
    m_plot->yAxis->setLabel(tr("share of requests"));
    m_plot->yAxis->setRange(0, 1.02);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
}

void CdfPlot::clear(const QString& title, const QString& xLabel)
{
    m_plot->clearGraphs();
    m_fullTitle = title;
    showWrappedTitle();
    m_plot->xAxis->setLabel(xLabel);
}

void CdfPlot::addCurve(const QString& name, const QColor& color, std::vector<double> values)
{
    if (values.empty())
        return;
    std::sort(values.begin(), values.end());
    constexpr std::size_t kMaxPoints = 2000;
    const std::size_t n = values.size();
    const std::size_t points = std::min(n, kMaxPoints);
    QVector<double> x, y;
    for (std::size_t i = 0; i < points; ++i) {
        const std::size_t rank = points == n ? i : i * (n - 1) / (points - 1);
        x << values[rank];
        y << double(rank + 1) / double(n);
    }
    QCPGraph* graph = m_plot->addGraph();
    graph->setName(name);
    graph->setPen(QPen(color, 2));
    graph->setLineStyle(QCPGraph::lsStepLeft);
    graph->setData(x, y, true);
}

void CdfPlot::replot()
{
    m_plot->rescaleAxes();
    m_plot->xAxis->setRangeLower(0);
    m_plot->yAxis->setRange(0, 1.02);
    m_plot->replot();
}

int CdfPlot::curveCount() const
{
    return m_plot->graphCount();
}

void CdfPlot::setExportTitle(const QString& title)
{
    m_fullTitle = title;
    showWrappedTitle();
}

void CdfPlot::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    showWrappedTitle();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CdfPlot::showWrappedTitle()
{
    const int width = std::max(120, this->width() - 32);
    m_title->setText(wrapTitle(m_fullTitle, QFontMetrics(m_title->font()), width).join(QLatin1Char('\n')));
    m_plot->setToolTip(m_fullTitle);
}

void CdfPlot::renderTo(QPaintDevice* device, const QSize& size)
{
    m_title->setText(m_fullTitle); // exports: the one-line title, as before
    renderPlot(m_plot, device, size);
    showWrappedTitle();
}

} // namespace ks
