#pragma once

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

/// A server's speculative-decoding figures at one scrape: vLLM's cumulative
/// counters (spec_decode_num_drafts/draft_tokens/accepted_tokens, summed over
/// label sets), or SGLang's accept-length gauge. Both absent: no spec decoding.
struct SpecDecodeCounters {
    bool counters = false; ///< vLLM's three counters were published
    double drafts = 0;
    double draftTokens = 0;
    double acceptedTokens = 0;
    std::optional<double> acceptLength; ///< SGLang's sglang:spec_accept_length (tokens per verify step)
    bool any() const { return counters || acceptLength; }
};

/// Accepted over draft tokens between two scrapes of the counters; -1 when none were drafted.
inline double specAcceptance(const SpecDecodeCounters& first, const SpecDecodeCounters& last)
{
    const double drafted = last.draftTokens - first.draftTokens;
    return first.counters && last.counters && drafted > 0 ? (last.acceptedTokens - first.acceptedTokens) / drafted : -1;
}

/// vLLM's mean acceptance length between two scrapes: 1 + accepted tokens per
/// draft (the verifier's own token plus the accepted drafts); -1 without drafts.
inline double specMeanAccepted(const SpecDecodeCounters& first, const SpecDecodeCounters& last)
{
    const double drafts = last.drafts - first.drafts;
    return first.counters && last.counters && drafts > 0 ? 1 + (last.acceptedTokens - first.acceptedTokens) / drafts
                                                         : -1;
}

/// The `spec_decode` object of a scrape line (docs/formats.md).
inline nlohmann::json specDecodeJson(const SpecDecodeCounters& c)
{
    nlohmann::json j = nlohmann::json::object();
    if (c.counters)
        j = { { "drafts", c.drafts }, { "draft_tokens", c.draftTokens }, { "accepted_tokens", c.acceptedTokens } };
    if (c.acceptLength)
        j["accept_length"] = *c.acceptLength;
    return j;
}

/// Reads a scrape line's `spec_decode` object back; nothing when it has none.
inline std::optional<SpecDecodeCounters> specDecodeFromJson(const nlohmann::json& j)
{
    if (!j.is_object())
        return std::nullopt;
    SpecDecodeCounters c;
    auto number = [&j](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    if (const auto d = number("drafts"), t = number("draft_tokens"), a = number("accepted_tokens"); d && t && a) {
        c.counters = true;
        c.drafts = *d;
        c.draftTokens = *t;
        c.acceptedTokens = *a;
    }
    c.acceptLength = number("accept_length");
    return c.any() ? std::optional<SpecDecodeCounters>(c) : std::nullopt;
}

} // namespace ks
