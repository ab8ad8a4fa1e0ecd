#pragma once

#include <QtGlobal>

#include <vector>

namespace ks {

/// Intended send times (µs from the arm's start) of an open-loop arrival process
/// with gamma-distributed gaps: mean 1/rate, shape `burstiness` (1 = Poisson).
/// Stops at `count` arrivals or at `durationS`, whichever comes first (0 = unbounded).
/// Deterministic for a seed.
std::vector<qint64> gammaArrivals(double rate, double burstiness, int count, double durationS, quint64 seed);

/// Appends the same process started at `fromUs` (a steered rate: the first
/// arrival one gap after `fromUs`, not at it): at most `count` arrivals
/// (0 = no count) before `endUs` (0 = no end), at most `limit` in all.
/// Returns false, having appended nothing, when more than `limit` would be needed.
bool appendGammaArrivals(std::vector<qint64>& times, qint64 fromUs, double rate, double burstiness, int count,
    qint64 endUs, quint64 seed, std::size_t limit);

} // namespace ks
