#pragma once

#include "spec/specchecker.h"

#include <QByteArray>

// Reading "configs", where a configuration's model or any knob may be a list:
// such a configuration is a grid and expands to the product of its lists
// (docs/experiments.md, "Grids"). Internal to the spec parser.
namespace ks::spec {

/// The most configurations a spec may expand to, over all of its grids.
constexpr int kMaxConfigurations = 256;

/// Reads and checks doc["configs"] into spec.configs, grids expanded. `text`
/// is the spec as written: a grid expands in the order its knobs are written,
/// which a parsed object (keys sorted) no longer knows.
void readConfigs(Checker& c, const json& doc, const QByteArray& text, ExperimentSpec& spec);

} // namespace ks::spec
