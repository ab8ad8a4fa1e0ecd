#pragma once

#include <nlohmann/json.hpp>

// The spec parser's reader of `search` (searchspec.cpp), apart from searchspec.h so
// that the parser's internal namespace stays out of every file that includes the spec.
namespace ks {

struct ExperimentSpec;
namespace spec {
class Checker;
}

/// Reads the spec's top-level `search` (absent or null: nothing) into
/// spec.search, after the configurations, arms and server are read: checks the
/// range, the scale, the objective against the arm, that there is exactly one
/// configuration and a server command to restart per probe.
void readSearch(spec::Checker& c, const nlohmann::json& doc, ExperimentSpec& spec);

} // namespace ks
