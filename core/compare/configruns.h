#pragma once

#include "compare/runtorun.h"
#include "compare/steadystate.h"
#include "metrics/bootstrap.h"
#include "metrics/runsummary.h"
#include "store/runfile.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ks {

nlohmann::json intervalJson(const Interval& i);

/// A run's summary from its requests, or an imported run's tool figures
/// (summary-only: docs/formats.md, "Importing").
nlohmann::json runSummaryOf(const RunData& run, const QString& arm, const Slo& slo);

/// summary[key][stat] when it is a number.
std::optional<double> statOf(const nlohmann::json& summary, const char* key, const char* stat);

/// One configuration's runs of one arm: a single run, or its repeats pooled
/// (every request of every repeat) for the bootstrap and the CDFs. Latencies
/// come from each run's steady part (its MSER-5 warm-up marked as such:
/// docs/metrics.md, "Steady state"); rates from the runs as they ran.
struct ConfigRuns {
    QString config;
    std::vector<const RunData*> runs; ///< as read
    std::deque<RunData> steadyCopies; ///< the runs that had a warm-up to drop
    std::vector<const RunData*> steady; ///< per run: its steady part (the run itself when nothing dropped)
    SteadyCut cut; ///< all runs together: `requests` and `dropped` summed
    RunData pooled; ///< filled by prepare() when there are repeats
    /// Finds each run's steady part and pools the repeats; once, after `runs` is complete.
    void prepare();
    const RunData& data() const { return runs.size() < 2 ? *steady.front() : pooled; }
    const RunData& rawData() const { return *runs.front(); }
};

/// The round a run belongs to: its `round`, else its `repeat`, else 1.
int roundOf(const RunData& run);

/// Latency over the pooled steady requests; rates as the mean over repeats,
/// since each repeat's clock starts at 0 and pooled spans would overlap.
nlohmann::json summaryOf(const ConfigRuns& group, const QString& arm, const Slo& slo);
/// The same over the runs as they ran, warm-up included (`raw` in compare --json).
nlohmann::json rawSummaryOf(const ConfigRuns& group, const QString& arm, const Slo& slo);

/// Each round's value of every latency statistic (from its steady part), and the `repeats` object.
struct RepeatValues {
    int runs = 0;
    std::map<std::string, RoundValues> values; ///< "ttft_ms.p50" -> round -> value
    nlohmann::json json;
};
RepeatValues repeatValuesOf(const ConfigRuns& group, const QString& arm, const Slo& slo);

/// The spread of one side's log values over its rounds: sd, and its degrees of freedom (n - 1).
std::pair<double, double> logSpread(const RoundValues& values);

} // namespace ks
