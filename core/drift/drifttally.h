#pragma once

#include "drift/driftanalysis.h"
#include "store/requestrecord.h"

#include <QVector>

namespace ks {

/// Drift so far, fed probe records as they arrive (live or replayed): keeps
/// each pass's hashes and re-runs analyzeDrift() on them, which takes
/// microseconds for a few hundred outputs. The text stays in the run file.
class DriftTally {
public:
    explicit DriftTally(nlohmann::json setIdentity = nullptr)
        : m_set(std::move(setIdentity))
    {
    }

    void setSetIdentity(const nlohmann::json& set) { m_set = set; }
    /// Adds the probe records of one probe run (`restart` from its run line).
    void add(const QString& config, const QString& model, int restart, const QVector<RequestRecord>& records);
    const DriftReport& report() const { return m_report; }
    int outputs() const;
    int mismatches() const;
    /// The `drift` object of a probe run's summary (docs/formats.md).
    nlohmann::json runSummary(const QString& config, int restart, int probes) const;
    bool empty() const { return m_passes.empty(); }

private:
    nlohmann::json m_set;
    std::vector<ProbePass> m_passes; ///< ordered by (configuration, restart, repeat)
    DriftReport m_report;
};

} // namespace ks
