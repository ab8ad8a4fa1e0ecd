#include "charts/kneeplot.h"

#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {

struct LineStyle {
    const char* metric;
    const char* label;
    Qt::PenStyle pen;
    bool rightAxis;
};
const LineStyle kLines[] = { { "ttft_p50", "TTFT p50", Qt::SolidLine, false },
    { "ttft_p99", "TTFT p99", Qt::DashLine, false }, { "tpot_p50", "TPOT p50", Qt::DotLine, true } };

double valueOf(const SweepPoint& p, const QString& metric)
{
    if (metric == QLatin1String("ttft_p50"))
        return p.ttftP50;
    if (metric == QLatin1String("ttft_p99"))
        return p.ttftP99;
    return p.tpotP50;
}

} // namespace

KneePlot::KneePlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(300, 220);
    m_heading = setUpPlotFrame(m_plot, this);
    // Latency spans two orders of magnitude between an idle and a saturated
    // server: a log axis keeps both ends of the knee readable.
    m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_plot->yAxis->setLabel(tr("TTFT (ms, log)"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("TPOT (ms)"));
    // The capacity step's values go in a line of their own: on the plot they collide with the SLO labels.
    m_capacityLine = addFootnote(m_plot, this);
    m_plot->legend->setWrap(3); // one row per configuration: TTFT p50, TTFT p99, TPOT p50
    reset(QString(), true, {});
}

void KneePlot::reset(const QString& title, bool overRate, const Slo& slo)
{
    m_title = title;
    m_overRate = overRate;
    m_slo = slo;
    m_order.clear();
    m_colors.clear();
    m_points.clear();
    m_heading->setText(title.isEmpty() ? tr("Knee: no sweep yet") : title);
    // A rate step sits at what it achieved, not at the rate its name offered (capacityText says both).
    m_plot->xAxis->setLabel(overRate ? tr("achieved requests/s (completions per second of each step)")
                                     : tr("concurrency (requests in flight, as each step asked)"));
    rebuild();
}

double KneePlot::xOf(const SweepPoint& p) const
{
    return m_overRate || !p.value ? p.achievedReqPerS : *p.value;
}

void KneePlot::addPoint(const SweepPoint& point, const QColor& color)
{
    if (!m_points.contains(point.config)) {
        m_order << point.config;
        m_colors.insert(point.config, color);
    }
    m_points[point.config].push_back(point);
    rebuild();
}

std::optional<double> KneePlot::capacity(const QString& config) const
{
    return sweepCapacity(m_points.value(config));
}

QVector<QPointF> KneePlot::line(const QString& config, const QString& metric) const
{
    std::vector<SweepPoint> points = m_points.value(config);
    std::sort(
        points.begin(), points.end(), [this](const SweepPoint& a, const SweepPoint& b) { return xOf(a) < xOf(b); });
    QVector<QPointF> out;
    for (const SweepPoint& p : points)
        if (valueOf(p, metric) > 0)
            out << QPointF(xOf(p), valueOf(p, metric));
    return out;
}

void KneePlot::rebuild()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    double maxX = 1;
    QStringList capacities;
    for (const QString& config : std::as_const(m_order)) {
        const QColor color = m_colors.value(config);
        for (const LineStyle& style : kLines) {
            const QVector<QPointF> points = line(config, QLatin1String(style.metric));
            QCPGraph* graph = m_plot->addGraph(m_plot->xAxis, style.rightAxis ? m_plot->yAxis2 : m_plot->yAxis);
            graph->setName(QStringLiteral("%1 %2").arg(config, QLatin1String(style.label)));
            graph->setPen(QPen(color, style.pen == Qt::SolidLine ? 2.2 : 1.6, style.pen));
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
            for (const QPointF& p : points) {
                graph->addData(p.x(), p.y());
                maxX = std::max(maxX, p.x());
            }
        }
        // The capacity step, circled on the TTFT p99 line, with its value.
        const std::optional<double> c = capacity(config);
        if (!c) {
            capacities << tr("%1 none of its steps").arg(config);
            continue;
        }
        capacities << tr("%1 %2").arg(
            config, capacityText(*c, achievedAtCapacity(m_points.value(config), *c), m_overRate));
        for (const SweepPoint& p : m_points.value(config)) {
            if (!p.value || *p.value != *c || p.ttftP99 <= 0)
                continue;
            auto* mark = new QCPItemTracer(m_plot);
            mark->position->setAxes(m_plot->xAxis, m_plot->yAxis);
            mark->position->setCoords(xOf(p), p.ttftP99);
            mark->setStyle(QCPItemTracer::tsCircle);
            mark->setSize(16);
            mark->setPen(QPen(color, 2.5));
            break;
        }
    }
    m_capacityLine->setText(
        m_order.isEmpty() ? QString() : tr("Capacity (circled): %1").arg(capacities.join(QStringLiteral("; "))));
    // TTFT's label at the right end, TPOT's at the left end, so the two never overlap.
    if (m_slo.ttftMs > 0)
        addTargetLine(m_plot, m_plot->yAxis, m_slo.ttftMs, tr("SLO: TTFT p99 ≤ %1 ms").arg(m_slo.ttftMs), true);
    if (m_slo.tpotMs > 0)
        addTargetLine(m_plot, m_plot->yAxis2, m_slo.tpotMs, tr("SLO: TPOT p99 ≤ %1 ms").arg(m_slo.tpotMs), false);
    m_plot->rescaleAxes();
    m_plot->xAxis->setRange(0, maxX * 1.08);
    // Keep the SLO lines in view, with room above the highest point.
    const QCPRange y = m_plot->yAxis->range();
    double low = y.lower > 0 ? y.lower : 1;
    double high = y.upper > 0 ? y.upper : 1000;
    if (m_slo.ttftMs > 0) {
        low = std::min(low, m_slo.ttftMs);
        high = std::max(high, m_slo.ttftMs);
    }
    m_plot->yAxis->setRange(low / 1.6, high * 1.6);
    const QCPRange y2 = m_plot->yAxis2->range();
    m_plot->yAxis2->setRange(0, std::max({ y2.upper, m_slo.tpotMs, 1.0 }) * 1.25);
}

void KneePlot::replot()
{
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void KneePlot::setExportTitle(const QString& title)
{
    m_heading->setText(title);
}

void KneePlot::renderTo(QPaintDevice* device, const QSize& size)
{
    renderPlot(m_plot, device, size);
}

} // namespace ks
