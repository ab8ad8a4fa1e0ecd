#pragma once

#include "metrics/bootstrap.h"

#include <string_view>

namespace ks {

/// How far the same configuration, run twice with a fresh server each time
/// (an A/A pair), differs from itself beyond what one run's block bootstrap
/// can see: the server's start, the machine's other load, the phase a closed
/// loop meets the engine's steps at. One run cannot show that spread, so
/// compare adds it to a single run's interval (docs/metrics.md, "Intervals").
///
/// The figure is the 95 % half-width of log(ratio) between the runs of an A/A
/// pair, per metric ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms") and statistic
/// ("p50", or a tail: "p95", "p99"), from A/A runs on knobscope-sim over the
/// bundled arm shapes (docs/metrics.md gives them). 0 for anything not measured.
double runToRunHalfWidth(std::string_view metric, std::string_view stat);

/// `interval` (of a ratio or a value, > 0) widened by a run-to-run half-width:
/// the two spreads added in quadrature around the interval's centre, in logs.
/// Unchanged when `halfWidth` is 0 or the interval is not positive.
Interval widenByRunToRun(const Interval& interval, double halfWidth);

} // namespace ks
