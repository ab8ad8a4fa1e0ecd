#pragma once

#include "store/runline.h"

#include <QByteArrayView>
#include <QString>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace ks {

/// Typed reads of another tool's JSON, with knobscope's issue rule
/// (docs/formats.md, "Reading a run file"): a missing or wrong-typed field is
/// a numbered issue naming the line and the field, never an exception.
/// `Need::Optional` fields may be absent silently; `Need::Expected` fields are
/// reported when absent; either is reported when of the wrong type and then
/// left empty. Callers decide what a missing required field skips.

/// A count read as a double, as an int: negative and fractional parts dropped,
/// clamped to int's range (a huge number in a foreign file must not overflow).
inline int countOf(double value)
{
    return int(std::clamp(value, 0.0, double(std::numeric_limits<int>::max())));
}

/// Milliseconds as whole microseconds, clamped to [0, 1e15] µs so that no
/// value in a foreign file makes the conversion overflow.
inline qint64 microsFromMs(double ms)
{
    return qint64(std::llround(std::clamp(ms * 1000.0, 0.0, 1e15)));
}

class FieldReader {
public:
    enum class Need { Optional, Expected };

    FieldReader(std::vector<RunFileIssue>& issues, qint64 line, QString consequence = QStringLiteral("left empty"))
        : m_issues(issues)
        , m_line(line)
        , m_consequence(std::move(consequence))
    {
    }

    std::optional<double> number(const nlohmann::json& object, const char* key, const QString& path, Need need);
    std::optional<QString> string(const nlohmann::json& object, const char* key, const QString& path, Need need);
    /// The array at `key`, or nullptr (absent, or reported as the wrong type).
    const nlohmann::json* array(const nlohmann::json& object, const char* key, const QString& path, Need need);
    const nlohmann::json* object(const nlohmann::json& object, const char* key, const QString& path, Need need);
    /// A number element of an array (`path` names it with its index).
    std::optional<double> element(const nlohmann::json& value, const QString& path);

    void issue(const QString& message) { m_issues.push_back({ m_line, message }); }
    qint64 line() const { return m_line; }
    std::size_t issueCount() const { return m_issues.size(); }

private:
    const nlohmann::json* find(const nlohmann::json& object, const char* key, const QString& path, Need need);
    void wrongType(const QString& path, const char* expected, const nlohmann::json& got);

    std::vector<RunFileIssue>& m_issues;
    qint64 m_line;
    QString m_consequence;
};

} // namespace ks
