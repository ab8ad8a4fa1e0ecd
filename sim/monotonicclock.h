#pragma once

#include <chrono>
#include <cstdint>

namespace kssim {

/// Microseconds on CLOCK_MONOTONIC (std::chrono::steady_clock on Linux): the
/// same clock in every process on one host, so a client on this machine can put
/// its own timestamps next to the truth log's.
inline std::int64_t monotonicNowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace kssim
