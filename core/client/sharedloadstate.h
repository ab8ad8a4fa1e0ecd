#pragma once

#include "client/requestfactory.h"
#include "util/monotonicclock.h"

#include <atomic>
#include <vector>

namespace ks {

/// What every worker of one arm reads: built before the workers start and
/// read-only afterwards, except the atomics.
struct SharedLoadState {
    explicit SharedLoadState(RequestFactory f)
        : factory(std::move(f))
    {
    }

    RequestFactory factory;
    /// Rate mode: intended send times (µs from t0) as the arm started. A steered
    /// rate gives the workers a longer copy (this prefix, then the new arrivals).
    std::vector<qint64> schedule;
    std::atomic<qint64> nextIndex { 0 };
    std::atomic<qint64> nextSession { 0 }; ///< multi-turn workloads
    std::atomic<int> sent { 0 }; ///< requests sent so far, for the in-flight count
    std::atomic<bool> stopping { false };
    std::atomic<bool> draining { false }; ///< no more sends; in-flight requests finish
    /// Set before the first steer(): a worker whose slots drop to 0 then idles
    /// for a later raise instead of finishing (closed loop only); a rate arm's
    /// workers then look at scheduleGeneration on their timeout sweep.
    std::atomic<bool> steered { false };
    /// Rate mode: how many times the arrival schedule was replaced. A worker
    /// whose share is used up finishes only once it holds the newest schedule.
    std::atomic<int> scheduleGeneration { 0 };
    qint64 t0Us = 0; ///< the arm's start on the monotonic clock
    qint64 deadlineUs = 0; ///< duration bound relative to t0, 0 = none
};

} // namespace ks
