#pragma once

#include "experiment/knobsearch.h"
#include "experiment/multiknobsearch.h"
#include "spec/experimentspec.h"
#include "store/runfile.h"

#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace ks {

/// Drives a knob search (docs/experiments.md, "Search") through the runner: each probe is a configuration appended to
/// the spec once the one before has ended, its value chosen by KnobSearch from the probes before it.
class SearchDriver {
public:
    /// Takes the spec's configuration as the base every probe copies and puts the first probe in its place.
    /// `spec` (with a search) outlives the driver; its configurations grow by one a probe.
    explicit SearchDriver(ExperimentSpec& spec);

    /// Configurations the progress counts: the search's budget until it stops.
    std::size_t plannedConfigs() const;
    /// Keeps a finished run made in configuration `config` if it is a run of the search's arm, for the probe's
    /// objective; `interrupted`: Stop cut it short.
    void keepRun(std::size_t config, const std::shared_ptr<const RunData>& run, bool interrupted);
    /// Configuration `config` has ended (or could not start): its objective goes to the search, and the next probe,
    /// if any, is appended. The last of `problems` says why a probe has no run.
    void concludeProbe(std::size_t config, bool stopRequested, const QStringList& problems);
    /// The `search` line the first time; null after.
    nlohmann::json takeLine(bool stopRequested);
    /// A search over several knobs: the `search_probe` line of the probe concluded last, once; null otherwise.
    nlohmann::json takeProbeLine();

private:
    void appendProbe(double value);
    void appendPoint(const std::vector<double>& point);
    void appendNext();

    ExperimentSpec& m_spec;
    KnobSearch m_search; ///< the one-knob search
    std::optional<MultiKnobSearch> m_multi; ///< the search over several knobs, instead
    nlohmann::json m_probeLine; ///< the multi-knob search's last concluded probe, until taken
    ConfigSpec m_base; ///< the configuration every probe copies
    std::vector<std::shared_ptr<const RunData>> m_runs; ///< the current probe's runs of the search's arm
    bool m_runInterrupted = false; ///< one of them was cut short by Stop
    bool m_done = false; ///< no further probe will be appended
    bool m_written = false;
};

} // namespace ks
