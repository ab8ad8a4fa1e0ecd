#pragma once

#include "simprofile.h"

#include <QByteArray>

#include <cstdint>

namespace kssim {

/// Everything that determines a request's output text.
struct OutputSeed {
    std::uint64_t promptHash = 0; ///< hash of the exact prompt text (or messages)
    std::uint64_t samplingKey = 0; ///< 0 for greedy (temperature 0); else derived from `seed` or random
    std::uint64_t processSeed = 0; ///< per-process numerics seed (random at start unless --engine-seed)
};

/// The token-by-token text of one request: a deterministic function of profile,
/// prompt and sampling key. For profiles with drift, one "near-tie" position per
/// fragile prompt picks its token from the numerics context (process seed,
/// prefix-cache hit, batch-size bucket at that step), the way batch-variant
/// kernels flip argmax ties on real GPUs; from there on the text diverges.
class OutputStream {
public:
    OutputStream(const SimProfile& profile, const OutputSeed& seed, int totalTokens);

    /// Called once, when the engine admits the request.
    void setPrefixCacheHit(bool hit) { m_cacheHit = hit; }
    /// Text of the next token (JSON-escaped and raw). `batchSize` is the engine batch
    /// that produced it. Must be called in token order.
    struct Token {
        const QByteArray* escaped;
        const QByteArray* raw;
        bool reasoning;
    };
    Token next(int batchSize);

    int reasoningTokens() const { return m_reasoningTokens; }
    int tiePosition() const { return m_tiePosition; }

    /// Bucket of batch sizes that share a kernel configuration.
    static int batchBucket(int batchSize);
    /// Output length drawn for a request without ignore_eos (profile mean, seeded by prompt).
    static int drawLength(const SimProfile& profile, const OutputSeed& seed, int maxTokens);

private:
    enum class Sensitivity { None, KernelPath, ProcessSeed };

    const SimProfile& m_profile;
    OutputSeed m_seed;
    std::uint64_t m_key;
    int m_index = 0;
    int m_reasoningTokens = 0;
    int m_tiePosition = -1;
    Sensitivity m_sensitivity = Sensitivity::None;
    bool m_cacheHit = false;
};

} // namespace kssim
