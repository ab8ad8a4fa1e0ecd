#include "outputstream.h"

#include "hashing.h"
#include "vocabulary.h"

#include <algorithm>
#include <cmath>

namespace kssim {

namespace {
// Salts keep the independent draws from one prompt hash uncorrelated.
constexpr std::uint64_t kSaltFragility = 0x66726167696c6974ULL;
constexpr std::uint64_t kSaltTie = 0x7469652d706f7321ULL;
constexpr std::uint64_t kSaltLength = 0x6c656e6774682121ULL;
constexpr int kMaxTiePosition = 24;
} // namespace

OutputStream::OutputStream(const SimProfile& profile, const OutputSeed& seed, int totalTokens)
    : m_profile(profile)
    , m_seed(seed)
    , m_key(combine(combine(hashBytes(profile.name.toUtf8()), seed.promptHash), seed.samplingKey))
{
    if (profile.reasoning)
        m_reasoningTokens
            = std::clamp(int(std::lround(totalTokens * profile.reasoningShare)), 1, std::max(1, totalTokens - 1));
    const double fragility = unitInterval(combine(seed.promptHash, kSaltFragility));
    if (fragility < profile.driftWithinProcess)
        m_sensitivity = Sensitivity::KernelPath;
    else if (fragility < profile.driftAcrossRestart)
        m_sensitivity = Sensitivity::ProcessSeed;
    if (m_sensitivity != Sensitivity::None)
        m_tiePosition = 1 + int(combine(seed.promptHash, kSaltTie) % kMaxTiePosition);
}

int OutputStream::batchBucket(int batchSize)
{
    if (batchSize <= 1)
        return 0;
    if (batchSize <= 4)
        return 1;
    if (batchSize <= 16)
        return 2;
    if (batchSize <= 64)
        return 3;
    return 4;
}

OutputStream::Token OutputStream::next(int batchSize)
{
    if (m_index == m_tiePosition) {
        std::uint64_t context = m_seed.processSeed;
        if (m_sensitivity == Sensitivity::KernelPath)
            context = combine(combine(context, m_cacheHit ? 1 : 2), std::uint64_t(batchBucket(batchSize)));
        m_key = combine(m_key, context);
    }
    const std::uint64_t h = combine(m_key, std::uint64_t(m_index));
    const Vocabulary& vocab = Vocabulary::instance();
    Token token { &vocab.jsonEscaped(h), &vocab.raw(h), m_index < m_reasoningTokens };
    ++m_index;
    return token;
}

int OutputStream::drawLength(const SimProfile& profile, const OutputSeed& seed, int maxTokens)
{
    // Geometric-like spread around the profile mean: -mean * ln(u), at least 1.
    const double u = std::max(1e-9, unitInterval(combine(combine(seed.promptHash, seed.samplingKey), kSaltLength)));
    const int drawn = std::max(1, int(std::lround(-profile.meanOutputTokens * std::log(u))));
    return std::min(drawn, maxTokens);
}

} // namespace kssim
