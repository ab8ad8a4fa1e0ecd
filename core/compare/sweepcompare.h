#pragma once

#include "compare/comparisontypes.h"
#include "metrics/runsummary.h"
#include "metrics/sweepcapacity.h"
#include "store/runfile.h"

#include <QStringList>

#include <nlohmann/json.hpp>

#include <map>
#include <vector>

namespace ks {

/// A run's sweep step fields (`arm`, `over`, `value`, `step`): from its run
/// line, else from its summary (the first segment of a steered arm learns it
/// is a step only when the arm is steered); null when it is no step.
nlohmann::json sweepStepOf(const RunData& run);

/// The sweep steps of one run file, per sweep arm in first-seen order.
struct SweepRuns {
    QString arm;
    QString over;
    std::vector<const RunData*> runs; ///< every step and repeat, file order
};
std::vector<SweepRuns> sweepRunsOf(const RunFile& file);

/// A step's point: its summary recomputed from its requests (summarizeRun()),
/// its sweep fields from the run line, its stop reason from the stored summary.
SweepPoint sweepPointOf(const RunData& run, const Slo& slo);

/// `compare --json`'s entry for one sweep arm: `sweep` holds `over`, the
/// `values` asked for (ascending, over every configuration), `capacity` per
/// configuration (a value or null), `stop` (reasons) and `points` per
/// configuration for the knee chart. `configs` stays empty: each step is also
/// an arm of its own, compared side by side like any other.
nlohmann::json sweepCompareEntry(const SweepRuns& sweep, const Slo& slo);

/// "mns128 sustains 8 req/s within TTFT p99 <= 500 ms and TPOT p99 <= 50 ms; mns32 sustains 2":
/// `compare`'s line per sweep arm (empty for an entry without `sweep`).
QString sweepCapacityLine(const nlohmann::json& armEntry);
QString sweepCapacityLine(const ComparedArm& armEntry);

/// A sweep arm's entry read back (its `sweep` object): the steps as compare
/// recomputed them, per configuration in file order, for the knee chart.
struct ComparedSweep {
    bool overRate = true; ///< false: over concurrency
    QStringList configs;
    std::map<QString, std::vector<SweepPoint>> points;
    std::map<QString, QString> stops; ///< per configuration that stopped early, the reason
};
/// Empty (no configurations) when `arm` is no sweep.
ComparedSweep comparedSweepOf(const ComparedArm& arm);

} // namespace ks
