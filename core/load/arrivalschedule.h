#pragma once

#include <QtGlobal>

#include <vector>

namespace ks {

/// Intended send times (µs from the arm's start) of an open-loop arrival process
/// with gamma-distributed gaps: mean 1/rate, shape `burstiness` (1 = Poisson).
/// Stops at `count` arrivals or at `durationS`, whichever comes first (0 = unbounded).
/// Deterministic for a seed.
std::vector<qint64> gammaArrivals(double rate, double burstiness, int count, double durationS, quint64 seed);

} // namespace ks
