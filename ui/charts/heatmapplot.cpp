#include "charts/heatmapplot.h"

#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace ks {

namespace {

constexpr int kFieldCells = 160; // per axis: fine enough that the nearest-probe borders look straight

double toUnit(double v, double lo, double hi, bool log2)
{
    if (log2)
        return (std::log2(v) - std::log2(lo)) / (std::log2(hi) - std::log2(lo));
    return (v - lo) / (hi - lo);
}

QString figure(double v)
{
    return QString::number(v, 'f', std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2);
}

void setScale(QCPAxis* axis, bool log2, double lo, double hi)
{
    if (log2) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
        ticker->setLogBase(2);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("f"));
        axis->setNumberPrecision(0);
    }
    axis->setRange(lo, hi);
}

} // namespace

HeatmapPlot::HeatmapPlot(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(320, 240);
    m_heading = setUpPlotFrame(m_plot, this);
    m_heading->setText(tr("Search heatmap: no search over two knobs"));
    m_footnote = addFootnote(m_plot, this);
    showLegend(m_plot, false);
    m_field = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_field->setInterpolate(false);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(1, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_field->setColorScale(m_scale);
    // Viridis's stops: even in lightness, readable in grey and with the common colour-vision deficiencies,
    // and no white end that would read as "no data".
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(68, 1, 84));
    gradient.setColorStopAt(0.25, QColor(59, 82, 139));
    gradient.setColorStopAt(0.5, QColor(33, 145, 140));
    gradient.setColorStopAt(0.75, QColor(94, 201, 98));
    gradient.setColorStopAt(1.0, QColor(253, 231, 37));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    m_field->setGradient(gradient);
    // The hatch shows through where the nearest probe was infeasible (left transparent).
    m_plot->axisRect()->setBackground(QBrush(QColor(150, 150, 150), Qt::BDiagPattern));
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
}

void HeatmapPlot::setHeatmap(const QString& title, const SearchHeatmap& map)
{
    m_map = map;
    m_heading->setText(title);
    rebuild();
}

void HeatmapPlot::fillField(double lowest, double highest)
{
    m_field->data()->setSize(kFieldCells, kFieldCells);
    m_field->data()->setRange(QCPRange(m_map.xMin, m_map.xMax), QCPRange(m_map.yMin, m_map.yMax));
    for (int i = 0; i < kFieldCells; ++i) {
        for (int j = 0; j < kFieldCells; ++j) {
            // On a log axis the field's cells are even in pixels, so even on the knob's scale too.
            const double u = (i + 0.5) / kFieldCells, v = (j + 0.5) / kFieldCells;
            double nearest = std::numeric_limits<double>::infinity();
            double value = std::numeric_limits<double>::quiet_NaN();
            for (const HeatmapProbe& p : m_map.probes) {
                const double du = toUnit(p.x, m_map.xMin, m_map.xMax, m_map.xLog2) - u;
                const double dv = toUnit(p.y, m_map.yMin, m_map.yMax, m_map.yLog2) - v;
                const double d = du * du + dv * dv;
                if (d < nearest) {
                    nearest = d;
                    value = p.feasible && p.objective ? *p.objective : std::numeric_limits<double>::quiet_NaN();
                }
            }
            m_field->data()->setCell(i, j, value);
        }
    }
    m_field->setDataRange(QCPRange(lowest, highest > lowest ? highest : lowest + 1));
    if (m_map.minimize) // a latency: low is good, so low gets the bright end
        m_field->setGradient(m_field->gradient().inverted());
}

void HeatmapPlot::rebuild()
{
    m_plot->clearItems();
    for (int i = m_plot->graphCount() - 1; i >= 0; --i)
        m_plot->removeGraph(i);
    const QColor text = chartColors(palette()).text;
    setScale(m_plot->xAxis, m_map.xLog2, m_map.xMin, m_map.xMax);
    setScale(m_plot->yAxis, m_map.yLog2, m_map.yMin, m_map.yMax);
    m_plot->xAxis->setLabel(m_map.xKnob);
    m_plot->yAxis->setLabel(m_map.yKnob);
    m_scale->axis()->setLabel(m_map.metric);
    double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (const HeatmapProbe& p : m_map.probes)
        if (p.feasible && p.objective) {
            lowest = std::min(lowest, *p.objective);
            highest = std::max(highest, *p.objective);
        }
    if (!std::isfinite(lowest))
        lowest = 0, highest = 1;
    fillField(lowest, highest);

    const auto markers = [&](QCPScatterStyle style) {
        QCPGraph* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(style);
        return g;
    };
    QCPGraph* probed = markers(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(Qt::black, 1), Qt::white, 7));
    QCPGraph* plateau = markers(QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(Qt::white, 2), Qt::NoBrush, 15));
    QCPGraph* infeasible = markers(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(Qt::black, 2), Qt::NoBrush, 11));
    QCPGraph* recommended
        = markers(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0, 114, 178), 3), Qt::NoBrush, 22));
    QCPGraph* top = markers(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(QColor(213, 94, 0), 2.5), Qt::NoBrush, 20));
    for (const HeatmapProbe& p : m_map.probes) {
        (p.feasible ? probed : infeasible)->addData(p.x, p.y);
        if (p.plateau)
            plateau->addData(p.x, p.y);
        if (p.recommended)
            recommended->addData(p.x, p.y);
        if (p.top)
            top->addData(p.x, p.y);
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(p.x, p.y);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(QMargins(8, 0, 0, 6));
        label->setColor(Qt::black);
        label->setBrush(QColor(255, 255, 255, 200));
        label->setText(p.feasible && p.objective
                ? figure(*p.objective)
                : tr("infeasible%1").arg(p.why.isEmpty() ? QString() : QStringLiteral(": ") + p.why.left(40)));
    }
    QStringList notes;
    notes << tr("Each area takes its nearest probe's figure (on the knobs' scales); hatched: nearest probe infeasible.")
          << tr("Ring: recommended (cheapest on the plateau); star: top; box: on the plateau; dot: probed.");
    if (!m_map.fixed.isEmpty())
        notes << tr("Other knobs fixed at the recommendation's: %1.").arg(m_map.fixed.join(QStringLiteral(", ")));
    if (m_map.leftOut > 0)
        notes << tr("%n probe(s) at other values of those knobs not drawn.", nullptr, int(m_map.leftOut));
    m_footnote->setText(notes.join(QLatin1Char('\n')));
    m_footnote->setTextColor(text);
}

void HeatmapPlot::replot()
{
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::setExportTitle(const QString& title)
{
    m_heading->setText(title);
}

void HeatmapPlot::renderTo(QPaintDevice* device, const QSize& size)
{
    renderPlot(m_plot, device, size);
}

} // namespace ks
