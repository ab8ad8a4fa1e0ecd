#pragma once

#include "compare/comparisontypes.h"

#include <nlohmann/json.hpp>

namespace ks {

/// The one writer of compare's JSON (`compare --json`, docs/formats.md): the
/// named fields and `rest` together.
nlohmann::json comparisonToJson(const Comparison& comparison);
nlohmann::json comparedArmToJson(const ComparedArm& arm);
nlohmann::json comparedConfigToJson(const ComparedConfig& config);

} // namespace ks
