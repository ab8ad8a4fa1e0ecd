#pragma once

#include "prefixcache.h"
#include "simprofile.h"

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace kssim {

struct EngineConfig {
    SimProfile profile;
    int maxNumSeqs = 128;
    int maxNumBatchedTokens = 2048;
    qint64 kvCacheTokens = 0;
    bool prefixCaching = true;
    /// Prefix-cache capacity in KV blocks; 0: the KV cache's size in blocks (cached
    /// blocks are free blocks that have not been reused yet).
    int prefixCacheBlocks = 0;
    /// Each step's time varies by this fraction (the standard deviation of a
    /// normal factor around 1, cut at three of them), from `jitterSeed`: a real
    /// engine's steps are not a metronome (docs/simulator.md). 0: exact.
    double stepJitter = 0;
    std::uint64_t jitterSeed = 0;
    /// Every step's time times this factor (docs/simulator.md, "A planted
    /// slowdown"): 1.10 is a server 10 % slower at everything, prefill and
    /// decode alike, so a comparison's true ratio is known. 1: the profile's speed.
    double stepScale = 1;
    /// An idle engine starts its next step this long after the first request
    /// arrives, so requests that arrive together (a closed-loop client
    /// re-sending a wave) share that step (docs/simulator.md). 0: at once.
    std::int64_t idleWakeUs = 0;
    /// Speculative decoding (docs/simulator.md): each decode step drafts this many
    /// tokens per sequence; 0: off.
    int specTokens = 0;
    /// Chance that each draft token is accepted, until the first rejection.
    double specAccept = 0;
    /// Cost of one draft token, as a fraction of stepBaseUs (the draft model's
    /// steps run one after another, each for the whole batch).
    double specDraftCost = 0.15;
    std::uint64_t specSeed = 0;
};

struct SequenceSpec {
    std::uint64_t id = 0;
    int promptTokens = 1;
    int outputTokens = 1;
    std::uint64_t promptHash = 0;
};

/// Tokens of one sequence that become visible at the end of a step: one, or
/// with speculative decoding the accepted drafts plus the verifier's own token.
struct TokenEmission {
    std::uint64_t id = 0;
    int tokenIndex = 0; ///< the first token's index
    bool last = false; ///< the sequence's last token is among them
    int count = 1; ///< tokens, from tokenIndex on
    int draftTokens = 0; ///< speculative decoding: tokens drafted for this sequence this step
    int acceptedTokens = 0; ///< of those, accepted (may exceed count - 1 at the output's end)
};

struct Admission {
    std::uint64_t id = 0;
    bool prefixCacheHit = false;
    int cachedTokens = 0; ///< prompt tokens found in the prefix cache (not prefilled)
    /// The exact prompt ran before (an LRU of 4096 prompts): the kernel path of a
    /// repeat, which the drift model keys on, also for prompts shorter than a block.
    bool repeatedPrompt = false;
};

/// What one engine step does. Tokens in `emissions` become visible at the end of the step.
struct StepOutcome {
    std::int64_t durationUs = 0;
    int decodeBatch = 0; ///< sequences sampled this step (decode plus prefills that completed)
    int prefillTokens = 0;
    std::vector<TokenEmission> emissions;
    std::vector<Admission> admitted;
};

/// A continuous-batching scheduler in the style of vLLM V1, on abstract time:
/// it decides what one step runs and how long that step takes, and is driven
/// either by a real timer (EngineLoop) or by a virtual clock (tests, VirtualLoad).
///
/// Each step: every running sequence whose prefill is done decodes one token;
/// the remaining token budget (max-num-batched-tokens) goes to unfinished prefills,
/// then to waiting sequences admitted FIFO while fewer than max-num-seqs run and
/// their KV-cache reservation (prompt + output) fits. A sequence whose prefill
/// completes in a step emits its first token at the end of that step.
/// Step time = base + perSeq * sampled sequences + prefillPerToken * prefill tokens.
/// With speculative decoding (specTokens K > 0) a decoding sequence drafts K
/// tokens, accepts each with probability specAccept until the first rejection
/// and emits the accepted ones plus one; the step verifies K + 1 positions per
/// decoding sequence, so it costs prefillPerToken * K more per sequence, plus
/// specDraftCost * base per draft token (docs/simulator.md).
class BatchEngine {
public:
    explicit BatchEngine(EngineConfig config);

    /// `blocks`: the prompt's KV block hashes (PromptBlocks). Empty: the prompt is
    /// named by spec.promptHash alone, so only an identical prompt hits the cache.
    void submit(const SequenceSpec& spec, std::vector<std::uint64_t> blocks = {});
    /// Removes a sequence wherever it is (client went away); unknown ids are ignored.
    void cancel(std::uint64_t id);

    bool idle() const { return m_running.empty() && m_waiting.empty(); }
    /// Plans one step and advances the state to its end.
    StepOutcome step();

    int runningCount() const { return int(m_running.size()); }
    int waitingCount() const { return int(m_waiting.size()); }
    /// KV-cache tokens in use (prompt prefilled so far plus tokens generated) over capacity.
    double kvCacheUsage() const;
    const EngineConfig& config() const { return m_config; }
    /// vLLM's prefix-cache counters: prompt tokens looked up, and those found cached.
    quint64 prefixCacheQueries() const { return m_prefixQueries; }
    quint64 prefixCacheHits() const { return m_prefixHits; }
    /// vLLM's spec-decode counters: drafts (one per sequence per decode step),
    /// draft tokens, accepted tokens, and accepted tokens by draft position.
    struct SpecCounters {
        quint64 drafts = 0;
        quint64 draftTokens = 0;
        quint64 acceptedTokens = 0;
        std::vector<quint64> acceptedPerPosition;
    };
    const SpecCounters& specCounters() const { return m_spec; }
    /// Accepted draft tokens of one draft: each accepted with probability `accept`
    /// until the first rejection, at most `tokens` (a geometric run, from `rng`).
    static int drawAccepted(int tokens, double accept, std::mt19937_64& rng);

private:
    struct Sequence {
        SequenceSpec spec;
        std::vector<std::uint64_t> blocks;
        int prefillRemaining = 0;
        int generated = 0;
        bool cacheHit = false;
    };

    bool admitOne(int& budget, StepOutcome& out);
    void prefillChunk(Sequence& seq, int& budget, StepOutcome& out);

    EngineConfig m_config;
    std::vector<Sequence> m_running; // admission order
    std::deque<Sequence> m_waiting;
    qint64 m_kvReserved = 0;
    PrefixCache m_prefixCache;
    PrefixCache m_seenPrompts { 4096 }; ///< whole-prompt hashes, one "block" each
    quint64 m_prefixQueries = 0;
    quint64 m_prefixHits = 0;
    std::mt19937_64 m_jitterRng;
    std::mt19937_64 m_specRng;
    SpecCounters m_spec;
};

} // namespace kssim
