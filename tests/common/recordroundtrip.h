#pragma once
// A request record written as its run-file line and read back by the line
// parser: what a saved run gives a later reader.
#include "store/recordjson.h"
#include "store/requestlineparser.h"

#include <optional>
#include <vector>

namespace ks {

/// The record read back from its own line; nothing when the line does not parse
/// as a clean record (an issue counts as a failure too).
inline std::optional<RequestRecord> roundTrip(const RequestRecord& r)
{
    const QByteArray line = QByteArray::fromStdString(toJson(r).dump());
    RequestRecord back;
    std::vector<RunFileIssue> issues;
    QString syntax;
    if (parseRequestLine(line, 1, &back, issues, nullptr, &syntax) != RequestLineResult::Record || !issues.empty())
        return std::nullopt;
    return back;
}

} // namespace ks
