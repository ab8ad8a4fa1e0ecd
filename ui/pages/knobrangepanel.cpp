#include "knobrangepanel.h"

#include "charts/heatmapplot.h"
#include "charts/knobplot.h"
#include "charts/knobrangecharts.h"
#include "charts/paretoplot.h"
#include "compare/knobresponse.h"
#include "compare/searchheatmap.h"
#include "feeds/runfileloader.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace ks {

KnobRangePanel::KnobRangePanel(QWidget* parent)
    : QWidget(parent)
    , m_chart(new QComboBox(this))
    , m_knob(new QComboBox(this))
    , m_metric(new QComboBox(this))
    , m_y(new QComboBox(this))
    , m_heatX(new QComboBox(this))
    , m_heatY(new QComboBox(this))
    , m_stack(new QStackedWidget(this))
    , m_knobPlot(new KnobPlot(this))
    , m_paretoPlot(new ParetoPlot(this))
    , m_heatmapPlot(new HeatmapPlot(this))
{
    m_chart->addItem(tr("Knob response"));
    m_chart->addItem(tr("Pareto"));
    m_chart->addItem(tr("Search heatmap"));
    m_chart->setToolTip(tr("Which chart: a metric against one knob's values, throughput against speed per user, or "
                           "a search over several knobs as its objective over two of them"));
    m_heatX->setToolTip(tr("The heatmap's x axis: a knob of the search"));
    m_heatY->setToolTip(tr("The heatmap's y axis: another knob of the search (the rest stay at the recommendation)"));
    m_knob->setToolTip(tr("The knob on the x axis"));
    for (QComboBox* box : { m_knob, m_heatX, m_heatY }) // knob names run long: max_num_batched_tokens
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_metric->setToolTip(tr("The figure on the y axis, as compare computes it"));
    m_metric->addItems(knobMetrics());
    m_metric->setCurrentText(QStringLiteral("ttft_ms.p99"));
    m_y->addItem(tr("tokens/s per user (1000 / TPOT p50)"), QStringLiteral("tpot"));
    m_y->addItem(tr("TTFT p99"), QStringLiteral("ttft_p99"));
    m_y->setToolTip(tr("The Pareto chart's y axis"));
    auto* row = new QHBoxLayout;
    auto label = [this, row](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, this);
        l->setBuddy(buddy);
        row->addWidget(l);
        row->addWidget(buddy);
        m_labelOf.insert(buddy, l);
    };
    label(tr("Char&t"), m_chart);
    label(tr("K&nob"), m_knob);
    label(tr("M&etric"), m_metric);
    label(tr("&Y axis"), m_y);
    label(tr("&Across"), m_heatX);
    label(tr("&Up"), m_heatY);
    row->addStretch(1);
    m_stack->addWidget(m_knobPlot);
    m_stack->addWidget(m_paretoPlot);
    m_stack->addWidget(m_heatmapPlot);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_stack, 1);
    for (QComboBox* box : { m_chart, m_knob, m_metric, m_y, m_heatX, m_heatY })
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_filling)
                refresh();
        });
    refresh(); // only the first chart's choosers take the row from the start
}

void KnobRangePanel::setResult(std::shared_ptr<const LoadedRunFile> result)
{
    m_result = std::move(result);
    m_filling = true;
    const QString knob = m_knob->currentText();
    m_knob->clear();
    if (m_result)
        m_knob->addItems(varyingKnobs(m_result->comparison));
    if (m_knob->findText(knob) >= 0)
        m_knob->setCurrentText(knob);
    const QStringList searched = m_result && m_result->file ? searchKnobNames(m_result->file->search) : QStringList();
    for (QComboBox* box : { m_heatX, m_heatY }) {
        const QString was = box->currentText();
        box->clear();
        box->addItems(searched);
        if (box->findText(was) >= 0)
            box->setCurrentText(was);
    }
    if (searched.size() >= 2 && m_heatX->currentText() == m_heatY->currentText())
        m_heatY->setCurrentIndex(m_heatX->currentIndex() == 0 ? 1 : 0);
    if (searched.size() >= 2) // a search over several knobs opens on its heatmap
        m_chart->setCurrentIndex(2);
    else if (m_chart->currentIndex() == 2)
        m_chart->setCurrentIndex(0);
    m_filling = false;
    refresh();
}

bool KnobRangePanel::hasHeatmap() const
{
    return m_result && hasSearchHeatmap(*m_result);
}

bool KnobRangePanel::showHeatmap(QString* error)
{
    if (!m_result || !m_result->file) {
        *error = tr("no file");
        return false;
    }
    const auto map = searchHeatmap(m_result->file->search, m_heatX->currentText(), m_heatY->currentText(), error);
    if (!map)
        return false;
    m_heatmapPlot->setHeatmap(
        knobRangeTitle(*m_result, tr("%1 over %2 and %3").arg(map->metric, map->xKnob, map->yKnob)), *map);
    return true;
}

bool KnobRangePanel::hasKnobChart() const
{
    return m_result && ks::hasKnobChart(*m_result);
}

bool KnobRangePanel::hasPareto() const
{
    return m_result && hasParetoChart(*m_result);
}

void KnobRangePanel::refresh()
{
    const bool pareto = m_chart->currentIndex() == 1;
    const bool heatmap = m_chart->currentIndex() == 2;
    // Each chart's choosers only, so the row never widens the page and the editor beside it keeps its
    // width at 1280 px: a knob name as long as max_num_batched_tokens then shows whole.
    const auto show = [this](QWidget* chooser, bool visible) {
        chooser->setVisible(visible);
        m_labelOf.value(chooser)->setVisible(visible);
    };
    show(m_knob, !pareto && !heatmap);
    show(m_metric, !pareto && !heatmap);
    show(m_y, pareto);
    show(m_heatX, heatmap);
    show(m_heatY, heatmap);
    m_stack->setCurrentIndex(m_chart->currentIndex());
    if (!m_result)
        return;
    if (heatmap) {
        QString error;
        if (!showHeatmap(&error))
            m_heatmapPlot->setHeatmap(error, SearchHeatmap());
        m_heatmapPlot->replot();
        return;
    }
    if (pareto) {
        ParetoY y = ParetoY::TokensPerUser;
        parseParetoY(m_y->currentData().toString(), &y);
        showPareto(y);
        return;
    }
    QString error;
    if (!m_knob->currentText().isEmpty() && !showKnob(m_knob->currentText(), m_metric->currentText(), &error))
        m_knobPlot->setResponse(error, KnobResponse());
    m_knobPlot->replot();
}

bool KnobRangePanel::showKnob(const QString& knob, const QString& metric, QString* error)
{
    return m_result && drawKnobResponse(*m_knobPlot, *m_result, knob, metric, error);
}

void KnobRangePanel::showPareto(ParetoY y)
{
    if (m_result)
        drawPareto(*m_paretoPlot, *m_result, y);
    else
        m_paretoPlot->setChart(QString(), ParetoChart());
    m_paretoPlot->replot();
}

} // namespace ks
