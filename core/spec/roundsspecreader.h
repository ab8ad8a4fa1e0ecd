#pragma once

#include <nlohmann/json.hpp>

// The spec parser's reader of the top-level `repeats`, `order` and `order_seed`
// (roundsspec.cpp), apart from experimentspec.h as the search's reader is.
namespace ks {

struct ExperimentSpec;
namespace spec {
class Checker;
}

/// Reads `order` and `order_seed` into spec.rounds, and `repeats`: a whole
/// number becomes the repeats of every arm without its own; an object
/// {"min", "max", "until"} becomes spec.rounds.until, the arms without their own
/// repeats running up to `max` rounds (a sweep arm each step `min` times).
/// After the configurations, arms, prompts (the default seed) and search are read.
void readRounds(spec::Checker& c, const nlohmann::json& doc, ExperimentSpec& spec);

} // namespace ks
