#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

namespace ks::jsontake {

// Readers of typed records that keep what they do not know (a summary line, the
// comparison) move each field they read out of the record, so what is left is
// exactly what they must write back unchanged. Each function here moves `key`
// out of `from` into `out` and returns true when its value has the field's JSON
// type; otherwise `from` and `out` are left as they were.

inline bool isInt64(const nlohmann::json& v)
{
    return v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX));
}

inline bool take(nlohmann::json& from, const char* key, QString& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !it->is_string())
        return false;
    out = QString::fromStdString(it->get<std::string>());
    from.erase(it);
    return true;
}

inline bool take(nlohmann::json& from, const char* key, bool& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !it->is_boolean())
        return false;
    out = it->get<bool>();
    from.erase(it);
    return true;
}

/// An integer that fits int64 (a larger one stays as written).
inline bool take(nlohmann::json& from, const char* key, qint64& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !isInt64(*it))
        return false;
    out = it->get<qint64>();
    from.erase(it);
    return true;
}

/// A JSON double only: an integer written back as a double would change the text.
inline bool take(nlohmann::json& from, const char* key, double& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !it->is_number_float())
        return false;
    out = it->get<double>();
    from.erase(it);
    return true;
}

inline bool takeObject(nlohmann::json& from, const char* key, nlohmann::json& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !it->is_object())
        return false;
    out = std::move(*it);
    from.erase(it);
    return true;
}

/// The optional forms: set only when taken.
template <typename T> bool take(nlohmann::json& from, const char* key, std::optional<T>& out)
{
    T value {};
    if (!take(from, key, value))
        return false;
    out = std::move(value);
    return true;
}

} // namespace ks::jsontake
