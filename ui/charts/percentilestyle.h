#pragma once

#include "metrics/percentiles.h"

#include <Qt>

namespace ks {

/// How the Live charts draw each percentile: p50 solid, p95 dashed, p99 dotted.
struct PercentileStyle {
    const char* name;
    Qt::PenStyle pen;
    double width;
};
inline constexpr PercentileStyle kPercentiles[]
    = { { "p50", Qt::SolidLine, 2.0 }, { "p95", Qt::DashLine, 1.4 }, { "p99", Qt::DotLine, 1.4 } };

inline double percentileOf(const PercentileSummary& s, int i)
{
    return i == 0 ? s.p50 : i == 1 ? s.p95 : s.p99;
}

} // namespace ks
