#pragma once

#include "experiment/searchprobe.h"
#include "spec/searchspec.h"

namespace ks {

/// Whether `a` ranks above `b`: feasible first, then by objective in the spec's direction.
bool probeBetter(const SearchSpec& spec, const SearchProbe& a, const SearchProbe& b);

/// Whether `p` is good enough beside `best` (docs/experiments.md, "Search"): its objective within the
/// spec's `tolerance` of the best's, or the two not told apart (the difference within the 95 % half-widths
/// that face each other, combined as sqrt(a^2 + b^2)).
bool probeOnPlateau(const SearchSpec& spec, const SearchProbe& p, const SearchProbe& best);

} // namespace ks
