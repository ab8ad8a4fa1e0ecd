#pragma once

#include <nlohmann/json.hpp>

namespace ks {

/// The confidence each interval of an experiment is computed at. 0.95, except
/// for repeats that run until decided (`"repeats": {"min", "max", "until"}`):
/// the comparison is looked at after every round from `min` to `max`, and each
/// look is a chance to stop on a fluke, so each look spends an equal share of
/// the 5 % (Bonferroni over the planned looks: 1 - 0.05 / (max - min + 1)).
/// That keeps the chance that any look's interval misses the true ratio at or
/// under 5 % however the rounds end (docs/metrics.md, "Repeats until decided").
/// `spec` is the experiment spec as written (the run file's `spec`).
double roundsConfidence(const nlohmann::json& spec);

/// The looks `spec` plans (max - min + 1), 1 when its repeats do not run until decided.
int plannedLooks(const nlohmann::json& spec);

} // namespace ks
