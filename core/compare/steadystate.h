#pragma once

#include "store/runfile.h"

#include <cstddef>
#include <vector>

namespace ks {

/// Where an arm's run settles (docs/metrics.md, "Steady state"): MSER-5 over
/// the TTFT of its requests in the order they were sent. The series is cut
/// into k batches of 5; for each candidate start d from 0 to k/2, the squared
/// error of the remaining batch means, sum((m_i - mean)^2) / (k - d)^2, is
/// computed, and the start that minimises it is the warm-up's end (White,
/// 1997). A minimum on the bound k/2 means the run never settled: it kept
/// moving to its end, so each later start looked steadier.
struct SteadyCut {
    std::size_t requests = 0; ///< the run's ok, non-warm-up requests with a TTFT
    std::size_t dropped = 0; ///< the first `dropped` of them are its warm-up
    bool settled = true; ///< false: the minimum fell on the bound (nothing is dropped then)
};

/// MSER-5 over `values` (in time order). Fewer than 20 values: nothing dropped, settled.
SteadyCut mser5(const std::vector<double>& values);

/// The cut of one run (its requests ordered by send time).
SteadyCut steadyCutOf(const RunData& run);

/// `run` with its first `cut.dropped` requests (by send time) marked warm-up,
/// so every percentile and interval computed from it leaves them out.
RunData steadyPart(const RunData& run, const SteadyCut& cut);

} // namespace ks
