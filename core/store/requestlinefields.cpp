#include "store/requestlinefields.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <limits>

namespace ks {

const std::unordered_map<std::string_view, RequestField>& requestLineFields()
{
    static const std::unordered_map<std::string_view, RequestField> map = {
        { "type", RequestField::Type },
        { "run", RequestField::Run },
        { "id", RequestField::Id },
        { "probe", RequestField::Probe },
        { "probe_repeat", RequestField::ProbeRepeat },
        { "session", RequestField::Session },
        { "turn", RequestField::Turn },
        { "prefix", RequestField::Prefix },
        { "warmup", RequestField::Warmup },
        { "t_sched_us", RequestField::TSched },
        { "t_send_us", RequestField::TSend },
        { "t_wire_us", RequestField::TWire },
        { "t_headers_us", RequestField::THeaders },
        { "server", RequestField::Server },
        { "ttft_us", RequestField::Ttft },
        { "ttfc_us", RequestField::Ttfc },
        { "e2e_us", RequestField::E2e },
        { "itl_us", RequestField::Itl },
        { "in_tokens", RequestField::InTokens },
        { "out_tokens", RequestField::OutTokens },
        { "out_tokens_source", RequestField::OutTokensSource },
        { "status", RequestField::Status },
        { "ok", RequestField::Ok },
        { "error", RequestField::Error },
        { "error_detail", RequestField::ErrorDetail },
        { "output_sha256", RequestField::OutputSha },
        { "reasoning_sha256", RequestField::ReasoningSha },
        { "output_text", RequestField::OutputText },
        { "reasoning_text", RequestField::ReasoningText },
        { "reasoning_tokens", RequestField::ReasoningTokens },
        { "reasoning_tokens_source", RequestField::ReasoningTokensSource },
        { "answer_tokens", RequestField::AnswerTokens },
        { "tool_call_events", RequestField::ToolCallEvents },
        { "tool_calls", RequestField::ToolCalls },
        { "images", RequestField::Images },
        { "image_bytes", RequestField::ImageBytes },
    };
    return map;
}

std::pair<qint64, qint64> rangeOf(RequestField f)
{
    switch (f) {
    case RequestField::Status:
        return { 0, 999 };
    case RequestField::InTokens:
    case RequestField::OutTokens:
    case RequestField::ProbeRepeat:
    case RequestField::Turn:
    case RequestField::Prefix:
    case RequestField::ReasoningTokens:
    case RequestField::AnswerTokens:
    case RequestField::ToolCallEvents:
    case RequestField::ToolCalls:
    case RequestField::Images:
        return { 0, INT_MAX };
    default:
        return { 0, std::numeric_limits<qint64>::max() };
    }
}

bool isHex64(const std::string& s)
{
    if (s.size() != 64)
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

ServerTimingKey serverTimingKeyOf(std::string_view k)
{
    return k == "prompt_ms"   ? ServerTimingKey::PromptMs
        : k == "predicted_ms" ? ServerTimingKey::PredictedMs
        : k == "prompt_n"     ? ServerTimingKey::PromptN
        : k == "predicted_n"  ? ServerTimingKey::PredictedN
        : k == "cache_n"      ? ServerTimingKey::CacheN
        : k == "source"       ? ServerTimingKey::Source
                              : ServerTimingKey::Other;
}

QString serverTimingExpected(ServerTimingKey key)
{
    switch (key) {
    case ServerTimingKey::PromptMs:
    case ServerTimingKey::PredictedMs:
        return QStringLiteral("a number >= 0");
    case ServerTimingKey::Source:
        return QStringLiteral("a string");
    default:
        return QStringLiteral("an integer >= 0");
    }
}

QString setServerTiming(ServerTimings& timings, ServerTimingKey key, double v, bool isInteger)
{
    switch (key) {
    case ServerTimingKey::Other:
        return {};
    case ServerTimingKey::Source:
        return QStringLiteral("expected a string, got a number");
    case ServerTimingKey::PromptMs:
    case ServerTimingKey::PredictedMs:
        if (!std::isfinite(v) || v < 0)
            return QStringLiteral("%1 is out of range (expected %2)").arg(v).arg(serverTimingExpected(key));
        (key == ServerTimingKey::PromptMs ? timings.promptMs : timings.predictedMs) = v;
        return {};
    default:
        break;
    }
    // Counts: integers, or integral floats as elsewhere in the reader.
    const bool integral = isInteger || (std::isfinite(v) && std::floor(v) == v);
    if (!integral || v < 0 || v > double(INT_MAX))
        return integral ? QStringLiteral("%1 is out of range (0 to %2)").arg(v).arg(INT_MAX)
                        : QStringLiteral("expected %1, got a number with a fraction").arg(serverTimingExpected(key));
    int& target = key == ServerTimingKey::PromptN ? timings.promptN
        : key == ServerTimingKey::PredictedN      ? timings.predictedN
                                                  : timings.cacheN;
    target = int(v);
    return {};
}

} // namespace ks
