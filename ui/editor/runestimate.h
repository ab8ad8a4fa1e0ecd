#pragma once

#include "spec/experimentspec.h"

#include <QStringList>

namespace ks {

/// About how long an experiment runs, from each arm's own settings: what the
/// editor shows under the configurations ("10 configurations × 3 arms, about 35 min").
struct RunEstimate {
    int configurations = 0; ///< after grid expansion
    int probes = 0; ///< a search's budget (each probe the one configuration); 0 without a search
    int arms = 0;
    double seconds = 0; ///< the part that could be estimated
    QStringList unknown; ///< arms (and "probes") whose time the spec does not tell
};

/// A nominal time per output token: knobscope-sim's models run at 16-28 ms
/// (docs/simulator.md); a real server's may differ severalfold.
constexpr double kNominalTpotMs = 25;

RunEstimate estimateRun(const ExperimentSpec& spec, double tpotMs = kNominalTpotMs);
/// "10 configurations × 3 arms, about 35 min" (with "+ unknown (ARM)" for what is not known).
QString estimateText(const RunEstimate& estimate);
/// What the estimate assumes, for its tooltip.
QString estimateAssumptions(double tpotMs = kNominalTpotMs);

} // namespace ks
