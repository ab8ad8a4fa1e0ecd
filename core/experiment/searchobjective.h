#pragma once

#include "experiment/knobsearch.h"
#include "metrics/runsummary.h"
#include "store/runfile.h"

#include <vector>

namespace ks {

/// A search probe's objective from the runs of the search's arm in that
/// configuration (its repeats, or its sweep steps), with a 95 % interval:
/// - a rate (goodput_req_per_s, req_per_s, out_tok_per_s): the summaries'
///   value (the mean over repeats), its interval a moving-block bootstrap
///   through Little's law: the rate moves with sum(share) / sum(e2e) of the
///   requests (share: 1 if it met the SLO, 1, or its output tokens), blocks of
///   one generation of concurrent requests in send order;
/// - a latency percentile (ttft_ms.p99): the pooled requests' percentile and
///   compare's block-bootstrap interval; beyond the spec's SLO on that metric
///   (TTFT or TPOT) the probe is infeasible;
/// - capacity: sweepCapacity() of the steps, its interval from the capacity to
///   the next step asked for (the sweep's resolution).
/// A probe without a figure (no completions, no step within the SLO) is infeasible.
SearchProbe searchObjective(const SearchSpec& search, const Slo& slo, const std::vector<const RunData*>& runs);

} // namespace ks
