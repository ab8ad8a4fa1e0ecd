#pragma once

#include "compare/comparisontypes.h"

#include <QStringList>

#include <nlohmann/json.hpp>

namespace ks {

/// Why a number moved, in one sentence, from what compare measured
/// (docs/metrics.md, "Why a number moved"). Sets each non-baseline
/// configuration's `why` ({"kind", "text"}: kind is queueing, compute, prefill,
/// client-bound, errors, noise or no-change) and, for a gentle arm, the arm's `why`
/// (kind gentle). `arm` is one element of compareRuns' output.
void addDiagnoses(nlohmann::json& arm);

/// The arm's diagnoses as lines for people: "Why: gentle: …" and "Why B differs: … [kind]".
QStringList diagnosisLines(const nlohmann::json& arm);
QStringList diagnosisLines(const ComparedArm& arm);

} // namespace ks
