#include "experiment/searchdriver.h"

#include "experiment/searchobjective.h"

#include <cmath>
#include <utility>

namespace ks {

SearchDriver::SearchDriver(ExperimentSpec& spec)
    : m_spec(spec)
    , m_search(*spec.search)
    , m_base(spec.configs.front())
{
    m_spec.configs.clear();
    m_spec.configs.reserve(std::size_t(m_spec.search->budget)); // references to the running one stay valid
    if (m_spec.search->multi())
        m_multi.emplace(*m_spec.search);
    appendNext();
}

void SearchDriver::appendNext()
{
    if (m_multi) {
        if (const auto point = m_multi->next())
            appendPoint(*point);
        else
            m_done = true;
    } else if (const auto value = m_search.next()) {
        appendProbe(*value);
    } else {
        m_done = true;
    }
}

void SearchDriver::appendPoint(const std::vector<double>& point)
{
    const SearchSpec& search = *m_spec.search;
    ConfigSpec probe = m_base;
    probe.label = search.pointLabel(point);
    for (std::size_t k = 0; k < search.knobs.size(); ++k)
        probe.knobs[search.knobs[k].name.toStdString()] = search.knobs[k].valueJson(point[k]);
    probe.search = { { "probe", m_spec.configs.size() }, { "point", search.pointJson(point) } };
    m_spec.configs.push_back(std::move(probe));
}

std::size_t SearchDriver::plannedConfigs() const
{
    if (m_done)
        return m_spec.configs.size();
    return std::max(m_spec.configs.size(), std::size_t(m_spec.search->budget));
}

void SearchDriver::appendProbe(double value)
{
    const SearchSpec& search = *m_spec.search;
    ConfigSpec probe = m_base;
    probe.label = search.probeLabel(search.integer ? std::round(value) : value);
    probe.knobs[search.knob.toStdString()] = search.knobValue(value);
    probe.search = { { "probe", m_spec.configs.size() }, { "value", search.knobValue(value) } };
    m_spec.configs.push_back(std::move(probe));
}

void SearchDriver::keepRun(std::size_t config, const std::shared_ptr<const RunData>& run, bool interrupted)
{
    if (config >= m_spec.configs.size() || m_spec.configs[config].search.is_null())
        return;
    const QString& arm = m_spec.search->arm;
    if (run->arm != arm && !run->arm.startsWith(arm + QLatin1Char('@')))
        return;
    m_runs.push_back(run);
    m_runInterrupted = m_runInterrupted || interrupted;
}

void SearchDriver::concludeProbe(std::size_t config, bool stopRequested, const QStringList& problems)
{
    if (config >= m_spec.configs.size())
        return;
    const ConfigSpec& probeConfig = m_spec.configs[config];
    std::vector<std::shared_ptr<const RunData>> runs = std::exchange(m_runs, {});
    const bool interrupted = std::exchange(m_runInterrupted, false);
    if (probeConfig.search.is_null() || (stopRequested && (interrupted || runs.empty())))
        return; // a probe cut short by Stop says nothing about its value
    std::vector<const RunData*> data;
    for (const auto& run : runs)
        data.push_back(run.get());
    SearchProbe probe = searchObjective(*m_spec.search, m_spec.slo, data);
    probe.label = probeConfig.label;
    if (runs.empty())
        probe.why = problems.isEmpty() ? QStringLiteral("the arm did not run") : problems.back();
    if (m_multi) {
        for (const SearchKnob& knob : m_spec.search->knobs)
            probe.point.push_back(probeConfig.search["point"][knob.name.toStdString()].get<double>());
        m_multi->addProbe(std::move(probe));
        m_probeLine = m_multi->probeLine(m_multi->probes().size() - 1);
    } else {
        probe.value = probeConfig.search["value"].get<double>();
        m_search.addProbe(std::move(probe));
    }
    if (stopRequested) {
        m_done = true;
        return;
    }
    appendNext();
}

nlohmann::json SearchDriver::takeProbeLine()
{
    return std::exchange(m_probeLine, nullptr);
}

nlohmann::json SearchDriver::takeLine(bool stopRequested)
{
    if (m_written)
        return nullptr;
    m_written = true;
    if (m_multi) {
        const bool early = stopRequested && m_multi->next().has_value();
        return m_multi->line(early ? QStringLiteral("stopped") : QString());
    }
    const bool early = stopRequested && m_search.next().has_value();
    return m_search.line(early ? QStringLiteral("stopped") : QString());
}

} // namespace ks
