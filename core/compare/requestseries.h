#pragma once

#include "store/runfile.h"

#include <cstddef>
#include <vector>

namespace ks {

/// One latency metric of a run as compare's bootstrap samples it: the values
/// in the order the requests ran (at most kMaxBootstrapValues, by a
/// deterministic stride) and the block length that keeps one generation of
/// concurrent requests together (blockLength(), in this series' own values).
struct Series {
    const char* key; ///< "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"
    std::vector<double> values;
    std::size_t block = 1;
};

/// Bootstrap intervals resample at most this many values of each metric,
/// keeping compare interactive on long runs; point values use all of them
/// (docs/PERFORMANCE.md).
inline constexpr std::size_t kMaxBootstrapValues = 5000;

/// TTFT, TPOT, ITL and E2E of the run's ok, non-warm-up requests, in that order.
std::vector<Series> seriesOf(const RunData& run);

} // namespace ks
