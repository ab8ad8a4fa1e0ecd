#include "pages/livesearchpanel.h"

#include "charts/heatmapplot.h"
#include "compare/searchheatmap.h"

#include <QVBoxLayout>

namespace ks {

LiveSearchPanel::LiveSearchPanel(QWidget* parent)
    : QWidget(parent)
    , m_plot(new HeatmapPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumHeight(320);
    hide();
}

void LiveSearchPanel::clear()
{
    m_search.clear();
    hide();
}

void LiveSearchPanel::setExperiment(const nlohmann::json& experimentLine)
{
    if (!m_search.start(experimentLine)) {
        hide();
        return;
    }
    redraw();
    show();
}

void LiveSearchPanel::addProbe(const nlohmann::json& line)
{
    if (!m_search.active() || m_search.ended())
        return;
    m_search.addProbe(line);
    redraw();
}

void LiveSearchPanel::finish(const nlohmann::json& searchLine)
{
    if (m_search.finish(searchLine)) // only the search this panel was set up for
        redraw();
}

void LiveSearchPanel::redraw()
{
    QString error;
    const auto map = searchHeatmap(m_search.line(), {}, {}, &error);
    if (!map)
        return;
    const int probes = int(map->probes.size());
    const QString& name = m_search.experimentName();
    const QString heading = m_search.ended()
        ? tr("%1 · %2 over %3 and %4\n%n probe(s); the search has ended (stopped: %5)", nullptr, probes)
              .arg(name, map->metric, map->xKnob, map->yKnob, m_search.stopReason())
        : tr("%1 · %2 over %3 and %4\n%n probe(s) so far; the recommendation when the search ends", nullptr, probes)
              .arg(name, map->metric, map->xKnob, map->yKnob);
    m_plot->setHeatmap(heading, *map);
    m_plot->replot();
}

} // namespace ks
