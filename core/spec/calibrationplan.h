#pragma once

#include "spec/experimentspec.h"

namespace ks {

/// The fewest runs an A/A calibration takes: two runs give one difference, no spread.
inline constexpr int kMinCalibrationRuns = 3;

/// `knobscope run SPEC --aa N` (docs/metrics.md, "Calibration"): turns `spec`
/// into N interleaved rounds of its baseline configuration (`baseline`, or the
/// first) alone, a fresh server start per round, over the spec's plain arms
/// (sweep arms, probes and the search left out), each arm run once a round.
/// The spec as written (`raw`) says the same, and `calibration` marks the file.
/// Returns what is wrong instead: too few runs, an unknown label, no plain arm.
QString applyCalibrationPlan(ExperimentSpec& spec, int runs, const QString& baseline);

} // namespace ks
