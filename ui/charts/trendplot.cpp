#include "charts/trendplot.h"

#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

namespace ks {

TrendPlot::TrendPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(300, 200);
    m_heading = setUpPlotFrame(m_plot, this);
    m_footnote = addFootnote(m_plot, this);
    m_plot->xAxis->setLabel(tr("run (oldest left): date · server"));
    setTrend({});
}

void TrendPlot::setTrend(const RunTrend& trend)
{
    m_trend = trend;
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_plot->clearPlottables();
    if (trend.points.empty()) {
        m_heading->setText(trend.config.isEmpty()
                ? tr("Trend: pick a row to follow its configuration across runs")
                : tr("Trend: no run of %1 / %2 has %3").arg(trend.config, trend.arm, trend.metric));
        m_footnote->setText(trend.notes.join(QStringLiteral("; ")));
        m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker)); // no run labels left behind
        m_plot->xAxis->setRange(0, 1);
        m_plot->yAxis->setRange(0, 1);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_heading->setText(tr("%1 · %2 · %3: %4 across %5 runs")
                           .arg(trend.spec, trend.config, trend.arm, trend.metric)
                           .arg(trend.points.size()));
    m_plot->yAxis->setLabel(trend.metric);
    const QColor color = configColor(0);
    QCPGraph* graph = m_plot->addGraph();
    graph->setName(tr("%1 (95 % interval per run)").arg(trend.metric));
    graph->setPen(QPen(color, 1.6));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    auto* bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
    bars->removeFromLegend();
    bars->setDataPlottable(graph);
    bars->setPen(QPen(color, 1.2));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double low = 0, high = 0;
    bool first = true;
    for (int i = 0; i < int(trend.points.size()); ++i) {
        const TrendPoint& p = trend.points[std::size_t(i)];
        const double v = *p.figure.value;
        graph->addData(i, v);
        const double minus = p.figure.low ? std::max(0.0, v - *p.figure.low) : 0;
        const double plus = p.figure.high ? std::max(0.0, *p.figure.high - v) : 0;
        bars->addData(minus, plus);
        const double bottom = v - minus, top = v + plus;
        low = first ? bottom : std::min(low, bottom);
        high = first ? top : std::max(high, top);
        first = false;
        QString label = QStringLiteral("@%1\n%2").arg(p.id).arg(p.startedAt.left(10));
        // The server under each run where it changed (and under the first): a new version is a likely cause.
        const QString server = p.serverVersions.section(QStringLiteral(" ("), 0, 0);
        if (!server.isEmpty() && (i == 0 || trend.points[std::size_t(i - 1)].serverVersions != p.serverVersions))
            label += QLatin1Char('\n') + server.left(24);
        ticker->addTick(i, label);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.5, double(trend.points.size()) - 0.5);
    const double pad = std::max((high - low) * 0.15, std::abs(high) * 0.02 + 1e-9);
    m_plot->yAxis->setRange(std::max(0.0, low - pad), high + pad);
    QStringList moved;
    const ChartColors colors = chartColors(palette());
    for (const TrendChange& c : trend.changes) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(c.index - 0.5, 0);
        line->point2->setCoords(c.index - 0.5, 1);
        line->setPen(QPen(QColor(0xD5, 0x5E, 0x00), 1.8, Qt::DashLine));
        auto* text = new QCPItemText(m_plot);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(c.index - 0.45, 0.02);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setColor(colors.text);
        text->setText(tr("%1x").arg(c.ratio, 0, 'f', 2));
        moved << tr("@%1 %2x").arg(trend.points[std::size_t(c.index)].id).arg(c.ratio, 0, 'f', 2);
    }
    QString foot = trend.changes.empty() ? tr("No change point")
                                         : tr("Change points (dashed): %1").arg(moved.join(QStringLiteral(", ")));
    foot += tr(" · level-shift test: |z| > %1 and a move of at least %2 % (docs/library.md)")
                .arg(trend.threshold, 0, 'f', 2)
                .arg(trend.minChange * 100, 0, 'f', 0);
    if (!trend.notes.isEmpty())
        foot += tr(" · %n run(s) left out", nullptr, int(trend.notes.size()));
    setToolTip(tr("A run starts a new level when it lies outside the level before it by more than its interval, the "
                  "level's and the scatter between the level's runs allow: |z| > %1 (Bonferroni over the series, 5 "
                  "% false alarms) and a move of at least %2 % (twice that until some level has two runs).%3")
                   .arg(trend.threshold, 0, 'f', 2)
                   .arg(trend.minChange * 100, 0, 'f', 0)
                   .arg(trend.notes.isEmpty() ? QString() : QLatin1Char('\n') + trend.notes.join(QLatin1Char('\n'))));
    m_footnote->setText(foot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TrendPlot::setExportTitle(const QString& title)
{
    m_heading->setText(title);
}

void TrendPlot::renderTo(QPaintDevice* device, const QSize& size)
{
    renderPlot(m_plot, device, size);
}

bool exportTrendChart(const RunTrend& trend, const QString& path, const QSize& size, QString* error)
{
    TrendPlot plot;
    plot.setTrend(trend);
    return exportChart(plot, path, size, error);
}

} // namespace ks
