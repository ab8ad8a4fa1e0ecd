#pragma once

#include "compare/comparisontypes.h"

#include <nlohmann/json.hpp>

namespace ks {

/// The one reader of compare's JSON: every key it names becomes a field; a key
/// it does not know, or a named one whose value has another type, stays in
/// `rest` as written (a wrong-typed number is still read into its field where
/// it can be), so comparisonToJson(comparisonFromJson(j)) == j, byte for byte,
/// for everything compareRuns writes. Not an array: an empty comparison.
Comparison comparisonFromJson(const nlohmann::json& arms);
ComparedArm comparedArmFromJson(const nlohmann::json& arm);
ComparedConfig comparedConfigFromJson(const nlohmann::json& config);

} // namespace ks
