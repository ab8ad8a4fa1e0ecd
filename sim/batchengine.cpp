#include "batchengine.h"

#include "hashing.h"
#include "promptblocks.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kssim {

namespace {
constexpr int kKvBlockTokens = PromptBlocks::kBlockTokens;

qint64 reservationOf(const SequenceSpec& s)
{
    return qint64(s.promptTokens) + s.outputTokens;
}
} // namespace

BatchEngine::BatchEngine(EngineConfig config)
    : m_config(std::move(config))
    , m_prefixCache(!m_config.prefixCaching ? 0
              : m_config.prefixCacheBlocks > 0
              ? m_config.prefixCacheBlocks
              : int(std::clamp<qint64>(m_config.kvCacheTokens / kKvBlockTokens, 1, std::numeric_limits<int>::max())))
{
    m_jitterRng.seed(m_config.jitterSeed);
    m_specRng.seed(m_config.specSeed);
    m_spec.acceptedPerPosition.assign(std::size_t(std::max(0, m_config.specTokens)), 0);
}

int BatchEngine::drawAccepted(int tokens, double accept, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    int accepted = 0;
    while (accepted < tokens && uniform(rng) < accept)
        ++accepted;
    return accepted;
}

void BatchEngine::submit(const SequenceSpec& spec, std::vector<std::uint64_t> blocks)
{
    Sequence seq;
    seq.spec = spec;
    if (blocks.empty()) {
        for (int i = 0; i < spec.promptTokens / kKvBlockTokens; ++i)
            blocks.push_back(combine(spec.promptHash, std::uint64_t(i)));
    }
    seq.blocks = std::move(blocks);
    seq.spec.promptTokens = std::max(1, spec.promptTokens);
    seq.spec.outputTokens = std::max(1, spec.outputTokens);
    m_waiting.push_back(seq);
}

void BatchEngine::cancel(std::uint64_t id)
{
    auto running
        = std::find_if(m_running.begin(), m_running.end(), [id](const Sequence& s) { return s.spec.id == id; });
    if (running != m_running.end()) {
        m_kvReserved -= reservationOf(running->spec);
        m_running.erase(running);
        return;
    }
    auto waiting
        = std::find_if(m_waiting.begin(), m_waiting.end(), [id](const Sequence& s) { return s.spec.id == id; });
    if (waiting != m_waiting.end())
        m_waiting.erase(waiting);
}

double BatchEngine::kvCacheUsage() const
{
    if (m_config.kvCacheTokens <= 0)
        return 0.0;
    qint64 used = 0;
    for (const Sequence& s : m_running)
        used += s.spec.promptTokens - s.prefillRemaining + s.generated;
    return std::min(1.0, double(used) / double(m_config.kvCacheTokens));
}

void BatchEngine::prefillChunk(Sequence& seq, int& budget, StepOutcome& out)
{
    const int chunk = std::min(budget, seq.prefillRemaining);
    seq.prefillRemaining -= chunk;
    budget -= chunk;
    out.prefillTokens += chunk;
    if (seq.prefillRemaining == 0) {
        // The last prefill chunk samples the first token.
        out.emissions.push_back({ seq.spec.id, 0, seq.spec.outputTokens == 1 });
        seq.generated = 1;
        ++out.decodeBatch;
        m_prefixCache.insert(seq.blocks);
        if (m_config.prefixCaching)
            m_seenPrompts.insert({ seq.spec.promptHash });
    }
}

bool BatchEngine::admitOne(int& budget, StepOutcome& out)
{
    if (m_waiting.empty() || budget <= 0 || int(m_running.size()) >= m_config.maxNumSeqs)
        return false;
    const Sequence& head = m_waiting.front();
    const qint64 need = reservationOf(head.spec);
    // A sequence larger than the whole cache is admitted alone rather than starved forever.
    if (m_kvReserved + need > m_config.kvCacheTokens && !m_running.empty())
        return false;

    Sequence seq = head;
    m_waiting.pop_front();
    // The last prompt token is always computed: it samples the first output token.
    const int cached = std::min(m_prefixCache.cachedBlocks(seq.blocks) * kKvBlockTokens, seq.spec.promptTokens - 1);
    seq.cacheHit = cached > 0;
    seq.prefillRemaining = seq.spec.promptTokens - cached;
    m_prefixQueries += quint64(seq.spec.promptTokens);
    m_prefixHits += quint64(cached);
    m_kvReserved += need;
    const bool repeated = m_seenPrompts.cachedBlocks({ seq.spec.promptHash }) == 1;
    out.admitted.push_back({ seq.spec.id, seq.cacheHit, cached, repeated });
    m_running.push_back(seq);
    prefillChunk(m_running.back(), budget, out);
    return true;
}

StepOutcome BatchEngine::step()
{
    StepOutcome out;
    if (idle())
        return out;

    int budget = m_config.maxNumBatchedTokens;
    int decodeSeqs = 0;
    const int draft = std::max(0, m_config.specTokens);
    for (Sequence& seq : m_running) {
        if (seq.prefillRemaining > 0 || seq.generated >= seq.spec.outputTokens)
            continue;
        TokenEmission e { seq.spec.id, seq.generated, false, 1, draft, 0 };
        if (draft > 0) {
            e.acceptedTokens = drawAccepted(draft, m_config.specAccept, m_specRng);
            e.count = std::min(e.acceptedTokens + 1, seq.spec.outputTokens - seq.generated);
            ++m_spec.drafts;
            m_spec.draftTokens += quint64(draft);
            m_spec.acceptedTokens += quint64(e.acceptedTokens);
            for (int i = 0; i < e.acceptedTokens; ++i)
                ++m_spec.acceptedPerPosition[std::size_t(i)];
        }
        seq.generated += e.count;
        e.last = seq.generated == seq.spec.outputTokens;
        out.emissions.push_back(e);
        ++decodeSeqs;
        budget -= 1 + draft; // the verifier computes every drafted position
    }
    out.decodeBatch = decodeSeqs;
    for (Sequence& seq : m_running) {
        if (budget <= 0)
            break;
        if (seq.prefillRemaining > 0)
            prefillChunk(seq, budget, out);
    }
    while (admitOne(budget, out)) { }

    const auto& p = m_config.profile;
    double durationUs = p.stepBaseUs + p.stepPerSeqUs * out.decodeBatch + p.prefillPerTokenUs * out.prefillTokens;
    if (draft > 0 && decodeSeqs > 0) // verifying the drafts, and drafting them
        durationUs += p.prefillPerTokenUs * draft * decodeSeqs + m_config.specDraftCost * p.stepBaseUs * draft;
    durationUs *= m_config.stepScale;
    if (m_config.stepJitter > 0) {
        const double sd = m_config.stepJitter;
        durationUs *= 1.0 + std::clamp(std::normal_distribution<double>(0.0, sd)(m_jitterRng), -3 * sd, 3 * sd);
    }
    out.durationUs = std::int64_t(std::llround(durationUs));

    auto finished = [this](const Sequence& s) {
        if (s.generated < s.spec.outputTokens)
            return false;
        m_kvReserved -= reservationOf(s.spec);
        return true;
    };
    m_running.erase(std::remove_if(m_running.begin(), m_running.end(), finished), m_running.end());
    return out;
}

} // namespace kssim
