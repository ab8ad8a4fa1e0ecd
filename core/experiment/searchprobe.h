#pragma once

#include <QString>

#include <optional>
#include <vector>

namespace ks {

/// One probe of a search: where it was (the knob's value, or a point over several knobs) and what its
/// objective read.
struct SearchProbe {
    double value = 0; ///< the one-knob search's value
    std::vector<double> point; ///< a search over several knobs: one value per knob, in the spec's order
    std::optional<double> objective; ///< none: the probe gave no figure (no completions, no capacity)
    double low = 0, high = 0; ///< its 95 % interval
    bool feasible = true; ///< false: no figure, or a latency objective beyond the spec's SLO
    QString label; ///< the probe's configuration label
    QString why; ///< why infeasible, empty otherwise
};

} // namespace ks
