#include "drift/drifttally.h"

namespace ks {

void DriftTally::add(const QString& config, const QString& model, int restart, const QVector<RequestRecord>& records)
{
    bool added = false;
    for (const RequestRecord& r : records) {
        if (r.probe.isEmpty())
            continue;
        const int repeat = std::max(0, r.probeRepeat);
        // Passes stay ordered by (configuration, restart, repeat) even when a
        // later repeat's first output arrives before an earlier one's.
        auto it = std::find_if(m_passes.begin(), m_passes.end(),
            [&](const ProbePass& p) { return p.config == config && p.restart == restart && p.repeat == repeat; });
        if (it == m_passes.end()) {
            auto at = std::find_if(m_passes.begin(), m_passes.end(), [&](const ProbePass& p) {
                return p.config == config && (p.restart > restart || (p.restart == restart && p.repeat > repeat));
            });
            ProbePass pass;
            pass.config = config;
            pass.model = model;
            pass.restart = restart;
            pass.repeat = repeat;
            it = m_passes.insert(at, std::move(pass));
        }
        it->outputs.push_back(probeOutputOf(r, false));
        added = true;
    }
    if (added)
        m_report = analyzeDrift(m_passes, m_set);
}

int DriftTally::outputs() const
{
    int n = 0;
    for (const ProbePass& pass : m_passes)
        n += int(pass.outputs.size());
    return n;
}

int DriftTally::mismatches() const
{
    int n = 0;
    for (const ConfigDrift& c : m_report.configs)
        n += int(c.mismatches.size());
    return n;
}

nlohmann::json DriftTally::runSummary(const QString& config, int restart, int probes) const
{
    nlohmann::json ids = nlohmann::json::array();
    int errors = 0;
    for (int row = 0; row < m_report.probes.size(); ++row) {
        bool changed = false;
        for (std::size_t c = 0; c < m_report.columns.size(); ++c) {
            const auto& column = m_report.columns[c];
            if (column.config != config || column.restart != restart)
                continue;
            changed = changed || m_report.cells[std::size_t(row)][c] == ProbeState::Changed;
            errors += m_report.cells[std::size_t(row)][c] == ProbeState::Error;
        }
        if (changed)
            ids.push_back(m_report.probes[row].toStdString());
    }
    return { { "probes", probes }, { "mismatches", ids.size() }, { "mismatch_ids", ids }, { "errors", errors },
        { "reference", "first pass of the first configuration serving the same model" } };
}

} // namespace ks
