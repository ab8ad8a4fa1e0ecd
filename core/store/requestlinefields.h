#pragma once

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
};

const std::unordered_map<std::string_view, RequestField>& requestLineFields();
/// The inclusive range of an integer field; time fields are microseconds >= 0.
std::pair<qint64, qint64> rangeOf(RequestField f);
/// 64 hexadecimal digits: how a SHA-256 is written in a run file.
bool isHex64(const std::string& s);

} // namespace ks
