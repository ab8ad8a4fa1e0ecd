#include "workload/tracespec.h"

#include <cmath>

namespace ks {

std::vector<qint64> TraceSpec::schedule(int count, double endS) const
{
    std::vector<qint64> times;
    if (!index || !(speed > 0))
        return times;
    const double endUs = endS > 0 ? endS * 1e6 : 0;
    times.reserve(index->entries.size());
    for (const TraceEntry& e : index->entries) {
        if (count > 0 && int(times.size()) >= count)
            break;
        const double at = double(e.offsetUs) / speed;
        if (endUs > 0 && at >= endUs)
            break;
        times.push_back(qint64(std::llround(at)));
    }
    return times;
}

} // namespace ks
