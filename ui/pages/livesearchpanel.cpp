#include "pages/livesearchpanel.h"

#include "charts/heatmapplot.h"
#include "compare/searchheatmap.h"

#include <QVBoxLayout>

#include <string>
#include <vector>

namespace ks {

namespace {

using nlohmann::json;

} // namespace

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
    m_line = nullptr;
    m_ended = false;
    m_name.clear();
    hide();
}

void LiveSearchPanel::setExperiment(const json& experimentLine)
{
    clear();
    if (!experimentLine.is_object())
        return;
    const json spec = experimentLine.value("spec", json());
    const json search = spec.is_object() ? spec.value("search", json()) : json();
    const json knobs = search.is_object() ? search.value("knobs", json()) : json();
    if (!knobs.is_object() || knobs.size() < 2)
        return;
    // The knobs as the closing search line lists them: sorted by name, as the spec's reader sorts them.
    json list = json::array();
    for (const auto& item : knobs.items()) {
        const json& k = item.value();
        if (!k.is_object())
            return;
        list.push_back({ { "name", item.key() }, { "min", k.value("min", 0.0) }, { "max", k.value("max", 1.0) },
            { "scale", k.value("scale", std::string("linear")) }, { "integer", k.value("integer", false) },
            { "cheaper", k.value("cheaper", std::string("lower")) } });
    }
    const std::string objective = search.value("objective", std::string("goodput_req_per_s"));
    const bool latency = objective.find('.') != std::string::npos;
    m_line = { { "type", "search" }, { "knobs", list }, { "arm", search.value("arm", std::string()) },
        { "metric", objective }, { "minimize", search.value("minimize", latency) }, { "best", nullptr },
        { "top", nullptr }, { "plateau", nullptr }, { "probes", json::array() } };
    m_name = QString::fromStdString(spec.value("name", std::string("experiment")));
    redraw();
    show();
}

void LiveSearchPanel::addProbe(const json& line)
{
    if (!m_line.is_object() || !line.is_object() || m_ended)
        return;
    json probe = line;
    probe.erase("type");
    m_line["probes"].push_back(probe);
    // The top so far: the best feasible figure in the objective's direction.
    const bool minimize = m_line.value("minimize", false);
    const json* top = nullptr;
    for (const json& p : m_line["probes"])
        if (p.value("feasible", false) && p.value("objective", json()).is_number()
            && (!top
                || (minimize ? p["objective"].get<double>() < (*top)["objective"].get<double>()
                             : p["objective"].get<double>() > (*top)["objective"].get<double>())))
            top = &p;
    if (top)
        m_line["top"]
            = { { "point", (*top)["point"] }, { "objective", (*top)["objective"] }, { "ci95", (*top)["ci95"] } };
    redraw();
}

void LiveSearchPanel::finish(const json& searchLine)
{
    // Only the search this panel was set up for: its closing line names the same knobs.
    const auto names = [](const json& line) {
        std::vector<std::string> out;
        for (const json& k : line.value("knobs", json::array()))
            out.push_back(k.is_object() ? k.value("name", std::string()) : std::string());
        return out;
    };
    if (!m_line.is_object() || !searchLine.is_object() || !searchLine.value("knobs", json()).is_array()
        || names(searchLine) != names(m_line))
        return;
    m_line = searchLine;
    m_ended = true;
    redraw();
}

void LiveSearchPanel::redraw()
{
    QString error;
    const auto map = searchHeatmap(m_line, {}, {}, &error);
    if (!map)
        return;
    const int probes = int(map->probes.size());
    const QString heading = m_ended
        ? tr("%1 · %2 over %3 and %4\n%n probe(s); the search has ended (stopped: %5)", nullptr, probes)
              .arg(m_name, map->metric, map->xKnob, map->yKnob,
                  QString::fromStdString(m_line.value("stop", std::string("?"))))
        : tr("%1 · %2 over %3 and %4\n%n probe(s) so far; the recommendation when the search ends", nullptr, probes)
              .arg(m_name, map->metric, map->xKnob, map->yKnob);
    m_plot->setHeatmap(heading, *map);
    m_plot->replot();
}

} // namespace ks
