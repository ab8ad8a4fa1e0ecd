#include "compare/runtorun.h"

#include <cmath>

namespace ks {

namespace {

struct Spread {
    std::string_view metric;
    double median; ///< p50
    double tail; ///< p95 and p99: a tail moves with the machine's other load first
};

// From the A/A runs of docs/metrics.md ("The A/A figures"): about 1.3 times the
// largest |log ratio| seen between identical configurations, rounded up, since a
// few pairs show the spread's scale, not its far end.
constexpr Spread kSpreads[] = {
    { "ttft_ms", 0.08, 0.28 },
    { "tpot_ms", 0.01, 0.02 },
    { "itl_ms", 0.04, 0.23 },
    { "e2e_ms", 0.01, 0.02 },
};

} // namespace

double runToRunHalfWidth(std::string_view metric, std::string_view stat)
{
    for (const Spread& s : kSpreads)
        if (s.metric == metric)
            return stat == "p50" ? s.median : s.tail;
    return 0;
}

Interval widenByRunToRun(const Interval& interval, double halfWidth)
{
    if (!(halfWidth > 0) || !(interval.low > 0) || !(interval.high >= interval.low))
        return interval;
    const double low = std::log(interval.low), high = std::log(interval.high);
    const double centre = (low + high) / 2, within = (high - low) / 2;
    const double both = std::sqrt(within * within + halfWidth * halfWidth);
    return { std::exp(centre - both), std::exp(centre + both) };
}

} // namespace ks
