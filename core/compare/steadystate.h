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
/// 1997), kept only when the batches before it differ from the rest by more
/// than two standard errors. A run whose kept batch means still trend upward
/// (Kendall's test, one-sided, 0.1 %) by 10 % or more from their first third
/// to their last never settled: it is flagged.
struct SteadyCut {
    std::size_t requests = 0; ///< the run's ok, non-warm-up requests with a TTFT
    std::size_t dropped = 0; ///< the first `dropped` of them are its warm-up
    bool settled = true; ///< false: TTFT still rising by 10 % or more after the cut
};

/// MSER-5 over `values` (in time order). Fewer than 20 values: nothing dropped, settled.
SteadyCut mser5(const std::vector<double>& values);

/// The cut of one run (its requests ordered by send time).
SteadyCut steadyCutOf(const RunData& run);

/// `run` with its first `cut.dropped` requests (by send time) marked warm-up,
/// so every percentile and interval computed from it leaves them out.
RunData steadyPart(const RunData& run, const SteadyCut& cut);

} // namespace ks
