#pragma once

#include "store/requestrecord.h"

#include <QString>
#include <QtGlobal>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace ks {

/// The fields of a request line (docs/formats.md) as the tolerant reader knows
/// them, with the integer range each may hold.
enum class RequestField {
    Type,
    Run,
    Id,
    Probe,
    ProbeRepeat,
    Session,
    Turn,
    Prefix,
    Warmup,
    TSched,
    TSend,
    TWire,
    THeaders,
    Server,
    Ttft,
    Ttfc,
    E2e,
    Itl,
    InTokens,
    OutTokens,
    OutTokensSource,
    Status,
    Ok,
    Error,
    ErrorDetail,
    OutputSha,
    ReasoningSha,
    OutputText,
    ReasoningText,
    ReasoningTokens,
    ReasoningTokensSource,
    AnswerTokens,
    ToolCallEvents,
    ToolCalls,
    Images,
    ImageBytes,
};

const std::unordered_map<std::string_view, RequestField>& requestLineFields();
/// The inclusive range of an integer field; time fields are microseconds >= 0.
std::pair<qint64, qint64> rangeOf(RequestField f);
/// 64 hexadecimal digits: how a SHA-256 is written in a run file.
bool isHex64(const std::string& s);

/// The keys of a request line's `server` object (llama.cpp's timings). Each
/// value is checked alone: a wrong one is dropped with an issue, the others kept.
enum class ServerTimingKey { PromptMs, PredictedMs, PromptN, PredictedN, CacheN, Source, Other };
ServerTimingKey serverTimingKeyOf(std::string_view key);
/// What the key holds, for issues ("a number >= 0", "an integer >= 0", "a string").
QString serverTimingExpected(ServerTimingKey key);
/// Stores one number of the `server` object in `timings`. Returns what is wrong
/// with it (the value is then left out), or an empty string.
QString setServerTiming(ServerTimings& timings, ServerTimingKey key, double v, bool isInteger);

} // namespace ks
