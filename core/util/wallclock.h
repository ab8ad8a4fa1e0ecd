#pragma once

#include "util/monotonicclock.h"

#include <chrono>

namespace ks {

/// Microseconds since the Unix epoch on this host's wall clock at the moment
/// `monotonicUsThen` (monotonicUs()) was taken, so that runs on several hosts
/// can be put on one time line (only as well as the hosts' clocks agree).
inline qint64 unixUsAtMonotonic(qint64 monotonicUsThen)
{
    const qint64 wallNow
        = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count();
    return wallNow - (monotonicUs() - monotonicUsThen);
}

} // namespace ks
