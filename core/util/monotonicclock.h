#pragma once

#include <QtGlobal>

#include <chrono>

namespace ks {

/// Microseconds on CLOCK_MONOTONIC (std::chrono::steady_clock on Linux): the one
/// clock every timestamp of a run is taken on, and the same in every process on
/// one host, so the client's timestamps sit next to knobscope-sim's truth log.
inline qint64 monotonicUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace ks
