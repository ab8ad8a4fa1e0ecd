#pragma once

#include "progressreporter.h"
#include "run/experimentspec.h"

/// `knobscope run SPEC.json`: reads and validates the spec, then runs it.
int runExperiment(
    const QString& specPath, const QString& outPath, ProgressReporter::Mode progressMode, double maxErrorRate);
/// Runs a validated experiment (also an ad-hoc one) to its end in the terminal:
/// progress per arm, a summary table per arm, Ctrl-C to stop (twice to leave).
int runExperimentSpec(
    ks::ExperimentSpec spec, const QString& outPath, ProgressReporter::Mode progressMode, double maxErrorRate);
