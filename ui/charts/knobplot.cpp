#include "charts/knobplot.h"

#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace ks {

namespace {

QString tickText(double v)
{
    return QString::number(v, 'g', 6);
}

} // namespace

KnobPlot::KnobPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(300, 220);
    m_heading = setUpPlotFrame(m_plot, this);
    m_heading->setText(tr("Knob response: no configurations that differ in a knob"));
    m_leftOut = addFootnote(m_plot, this);
    m_plot->legend->setWrap(3);
}

void KnobPlot::setResponse(const QString& title, const KnobResponse& response)
{
    m_response = response;
    m_heading->setText(title);
    rebuild();
}

void KnobPlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->xAxis->setScaleType(QCPAxis::stLinear);
    m_plot->xAxis->grid()->setZeroLinePen(m_plot->xAxis->grid()->pen());
    m_plot->xAxis->setLabel(m_response.knob + (m_response.logX ? tr(" (log scale)") : QString()));
    m_plot->yAxis->setLabel(m_response.metricTitle);
    if (m_response.numeric)
        drawLines();
    else
        drawBars();
    drawSlo();
    QStringList leftOut;
    for (const KnobLeftOut& l : m_response.leftOut)
        leftOut << tr("%1 / %2 (%3)").arg(l.config, l.arm, l.reason);
    m_leftOut->setText(leftOut.isEmpty() ? QString() : tr("Not drawn: %1").arg(leftOut.join(QStringLiteral("; "))));
    m_leftOut->setVisible(!leftOut.isEmpty());
    // y from 0 (a bar or a rate read against nothing misleads), with room above the highest interval and the SLO.
    double top = m_response.slo.value_or(0);
    for (const KnobSeries& s : m_response.series)
        for (const KnobPoint& p : s.points)
            top = std::max({ top, p.y, p.ci95 ? p.ci95->high : 0.0 });
    m_plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
}

void KnobPlot::drawLines()
{
    std::set<double> values;
    for (const KnobSeries& s : m_response.series)
        for (const KnobPoint& p : s.points)
            values.insert(p.x);
    // Ticks at the values the experiment ran, so each point reads off the axis.
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (double v : values)
        ticker->addTick(v, tickText(v));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setSubTicks(false);
    if (m_response.logX)
        m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    if (!values.empty()) {
        const double lo = *values.begin(), hi = *values.rbegin();
        if (m_response.logX)
            m_plot->xAxis->setRange(lo / 1.3, hi * 1.3);
        else {
            const double pad = hi > lo ? (hi - lo) * 0.06 : 1.0;
            m_plot->xAxis->setRange(lo - pad, hi + pad);
        }
    }
    int index = 0;
    for (const KnobSeries& s : m_response.series) {
        const QColor color = configColor(index++);
        // The 95 % interval as a band between two unnamed graphs.
        QCPGraph* low = m_plot->addGraph();
        QCPGraph* high = m_plot->addGraph();
        for (QCPGraph* g : { low, high }) {
            g->removeFromLegend();
            g->setPen(Qt::NoPen);
        }
        QColor band = color;
        band.setAlpha(55);
        high->setBrush(band);
        high->setChannelFillGraph(low);
        QCPGraph* line = m_plot->addGraph();
        line->setName(s.label());
        line->setPen(QPen(color, 2.2));
        line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
        for (const KnobPoint& p : s.points) {
            line->addData(p.x, p.y);
            if (p.ci95) {
                low->addData(p.x, p.ci95->low);
                high->addData(p.x, p.ci95->high);
            }
        }
    }
}

void KnobPlot::drawBars()
{
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    for (int i = 0; i < m_response.categories.size(); ++i)
        ticker->addTick(i, m_response.categories[i]);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setSubTicks(false);
    m_plot->xAxis->setRange(-0.6, m_response.categories.size() - 0.4);
    m_plot->xAxis->grid()->setZeroLinePen(Qt::NoPen); // category 0 is a bar, not an origin
    auto* group = new QCPBarsGroup(m_plot);
    const double width = 0.8 / std::max<std::size_t>(1, m_response.series.size());
    int index = 0;
    for (const KnobSeries& s : m_response.series) {
        const QColor color = configColor(index++);
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(s.label());
        bars->setWidth(width);
        bars->setPen(QPen(outlineOf(color)));
        bars->setBrush(color);
        bars->setBarsGroup(group);
        auto* whiskers = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        whiskers->removeFromLegend();
        whiskers->setPen(QPen(chartColors(palette()).text, 1.4));
        QVector<double> keys, values, minus, plus;
        for (const KnobPoint& p : s.points) {
            keys << p.x;
            values << p.y;
            // No interval: no whisker (NaN is not drawn), rather than one that claims no spread.
            minus << (p.ci95 ? std::max(0.0, p.y - p.ci95->low) : qQNaN());
            plus << (p.ci95 ? std::max(0.0, p.ci95->high - p.y) : qQNaN());
        }
        bars->setData(keys, values, true);
        whiskers->setDataPlottable(bars);
        whiskers->setData(minus, plus);
    }
}

void KnobPlot::drawSlo()
{
    if (!m_response.slo)
        return;
    addTargetLine(m_plot, m_plot->yAxis, *m_response.slo,
        tr("SLO: %1 p99 ≤ %2 ms").arg(m_response.metric.section(QLatin1Char('_'), 0, 0).toUpper()).arg(*m_response.slo),
        true);
}

void KnobPlot::replot()
{
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void KnobPlot::setExportTitle(const QString& title)
{
    m_heading->setText(title);
}

void KnobPlot::renderTo(QPaintDevice* device, const QSize& size)
{
    renderPlot(m_plot, device, size);
}

} // namespace ks
