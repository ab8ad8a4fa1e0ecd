#include "compare/searchsofar.h"

#include <string>
#include <vector>

namespace ks {

namespace {

using nlohmann::json;

std::vector<std::string> knobNamesOf(const json& line)
{
    std::vector<std::string> out;
    for (const json& k : line.value("knobs", json::array()))
        out.push_back(k.is_object() ? k.value("name", std::string()) : std::string());
    return out;
}

bool better(const json& probe, const json& than, bool minimize)
{
    const double a = probe["objective"].get<double>(), b = than["objective"].get<double>();
    return minimize ? a < b : a > b;
}

} // namespace

void SearchSoFar::clear()
{
    m_line = nullptr;
    m_name.clear();
    m_ended = false;
}

bool SearchSoFar::start(const json& experimentLine)
{
    clear();
    if (!experimentLine.is_object())
        return false;
    const json spec = experimentLine.value("spec", json());
    const json search = spec.is_object() ? spec.value("search", json()) : json();
    const json knobs = search.is_object() ? search.value("knobs", json()) : json();
    if (!knobs.is_object() || knobs.size() < 2)
        return false;
    // The knobs as the closing search line lists them: sorted by name, as the spec's reader sorts them.
    json list = json::array();
    for (const auto& item : knobs.items()) {
        const json& k = item.value();
        if (!k.is_object())
            return false;
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
    return true;
}

void SearchSoFar::addProbe(const json& probeLine)
{
    if (!m_line.is_object() || !probeLine.is_object() || m_ended)
        return;
    json probe = probeLine;
    probe.erase("type");
    m_line["probes"].push_back(std::move(probe));
    const bool minimize = m_line.value("minimize", false);
    const json* top = nullptr;
    for (const json& p : m_line["probes"])
        if (p.value("feasible", false) && p.value("objective", json()).is_number()
            && (!top || better(p, *top, minimize)))
            top = &p;
    if (top)
        m_line["top"] = { { "point", top->value("point", json()) }, { "objective", (*top)["objective"] },
            { "ci95", top->value("ci95", json()) } };
}

bool SearchSoFar::finish(const json& searchLine)
{
    if (!m_line.is_object() || !searchLine.is_object() || !searchLine.value("knobs", json()).is_array()
        || knobNamesOf(searchLine) != knobNamesOf(m_line))
        return false;
    m_line = searchLine;
    m_ended = true;
    return true;
}

QString SearchSoFar::stopReason() const
{
    const json stop = m_line.is_object() ? m_line.value("stop", json()) : json();
    return stop.is_string() ? QString::fromStdString(stop.get<std::string>()) : QStringLiteral("?");
}

} // namespace ks
