#pragma once

#include <QByteArrayView>

#include <cstdint>

namespace kssim {

// Small, fast, stable hashes for deterministic simulation (not for security):
// outputs must be identical across runs, processes and platforms, which rules out
// qHash (seeded per process) and std::hash (unspecified).

inline std::uint64_t mix64(std::uint64_t x)
{
    // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

inline std::uint64_t combine(std::uint64_t a, std::uint64_t b)
{
    return mix64(a ^ mix64(b));
}

inline std::uint64_t hashBytes(QByteArrayView bytes)
{
    // FNV-1a, then a finaliser for better low bits
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : bytes) {
        h ^= std::uint8_t(c);
        h *= 0x100000001b3ULL;
    }
    return mix64(h);
}

/// Uniform in [0, 1) from a hash.
inline double unitInterval(std::uint64_t h)
{
    return double(h >> 11) * 0x1.0p-53;
}

} // namespace kssim
