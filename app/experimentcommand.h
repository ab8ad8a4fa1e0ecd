#pragma once

#include "progressreporter.h"
#include "runextras.h"
#include "spec/experimentspec.h"

/// `knobscope run SPEC.json`: reads and validates the spec, then runs it.
int runExperiment(const QString& specPath, const QString& outPath, ProgressReporter::Mode progressMode,
    double maxErrorRate, const RunExtras& extras = {});
/// Runs a validated experiment (also an ad-hoc one) to its end in the terminal:
/// progress per arm, a summary table per arm, Ctrl-C to stop (twice to leave).
/// `extras`: a shard's start barrier and run-line object, and the metrics endpoint.
int runExperimentSpec(ks::ExperimentSpec spec, const QString& outPath, ProgressReporter::Mode progressMode,
    double maxErrorRate, const RunExtras& extras = {});
