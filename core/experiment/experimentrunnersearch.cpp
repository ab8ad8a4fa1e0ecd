// The runner's search (docs/experiments.md, "Search"): probes appended one at
// a time as configurations, each value chosen from the probes before it.
#include "experiment/experimentrunner.h"

#include "experiment/searchobjective.h"

namespace ks {

std::size_t ExperimentRunner::plannedConfigs() const
{
    if (!m_search || m_searchDone)
        return m_spec.configs.size();
    return std::max(m_spec.configs.size(), std::size_t(m_spec.search->budget));
}

void ExperimentRunner::startSearch()
{
    if (!m_spec.search)
        return;
    m_search = std::make_unique<KnobSearch>(*m_spec.search);
    m_searchBase = m_spec.configs.front();
    m_spec.configs.clear();
    m_spec.configs.reserve(std::size_t(m_spec.search->budget)); // references to the running one stay valid
    if (const auto first = m_search->next())
        appendSearchProbe(*first);
    else
        m_searchDone = true;
}

void ExperimentRunner::appendSearchProbe(double value)
{
    const SearchSpec& search = *m_spec.search;
    ConfigSpec probe = m_searchBase;
    probe.label = search.probeLabel(search.integer ? std::round(value) : value);
    probe.knobs[search.knob.toStdString()] = search.knobValue(value);
    probe.search = { { "probe", m_spec.configs.size() }, { "value", search.knobValue(value) } };
    m_spec.configs.push_back(std::move(probe));
}

void ExperimentRunner::keepSearchRun(const std::shared_ptr<const RunData>& run, bool interrupted)
{
    if (!m_search || m_config >= m_spec.configs.size() || m_spec.configs[m_config].search.is_null())
        return;
    const QString& arm = m_spec.search->arm;
    if (run->arm != arm && !run->arm.startsWith(arm + QLatin1Char('@')))
        return;
    m_searchRuns.push_back(run);
    m_searchRunInterrupted = m_searchRunInterrupted || interrupted;
}

void ExperimentRunner::concludeSearchProbe()
{
    if (!m_search || m_config >= m_spec.configs.size())
        return;
    const ConfigSpec& config = m_spec.configs[m_config];
    std::vector<std::shared_ptr<const RunData>> runs = std::exchange(m_searchRuns, {});
    const bool interrupted = std::exchange(m_searchRunInterrupted, false);
    if (config.search.is_null() || (m_stopRequested && (interrupted || runs.empty())))
        return; // a probe cut short by Stop says nothing about its value
    std::vector<const RunData*> data;
    for (const auto& run : runs)
        data.push_back(run.get());
    SearchProbe probe = searchObjective(*m_spec.search, m_spec.slo, data);
    probe.value = config.search["value"].get<double>();
    probe.label = config.label;
    if (runs.empty())
        probe.why = m_problems.isEmpty() ? QStringLiteral("the arm did not run") : m_problems.back();
    m_search->addProbe(std::move(probe));
    if (m_stopRequested) {
        m_searchDone = true;
        return;
    }
    if (const auto next = m_search->next())
        appendSearchProbe(*next);
    else
        m_searchDone = true;
}

void ExperimentRunner::writeSearchLine()
{
    if (!m_search || m_searchWritten)
        return;
    m_searchWritten = true;
    const bool early = m_stopRequested && m_search->next().has_value();
    m_writer.write(m_search->line(early ? QStringLiteral("stopped") : QString()));
}

} // namespace ks
