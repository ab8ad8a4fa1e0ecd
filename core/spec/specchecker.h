#pragma once

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

#include "spec/experimentspec.h"

// The field-by-field checker behind parseExperimentSpec() (experimentspec.cpp):
// internal to the spec parser, in a header of its own so that file keeps to
// what the spec means rather than how a field is checked.
namespace ks::spec {

using nlohmann::json;

inline QString child(const QString& path, const char* key)
{
    return path.isEmpty() ? QString::fromLatin1(key) : path + QLatin1Char('.') + QLatin1String(key);
}
inline QString indexed(const QString& path, std::size_t i)
{
    return path + QStringLiteral("[%1]").arg(i);
}

// Field-by-field reading that records a SpecError for every problem and keeps going.
class Checker {
public:
    std::vector<SpecError> errors;

    void fail(const QString& path, const QString& message) { errors.push_back({ path, message }); }

    bool isObject(const json& j, const QString& path)
    {
        if (j.is_object())
            return true;
        fail(path, QStringLiteral("expected an object"));
        return false;
    }

    void rejectUnknown(const json& object, const QString& path, std::initializer_list<const char*> known)
    {
        for (const auto& item : object.items()) {
            // Not a structured binding: clang 14 (Debian 12) cannot capture one in a lambda.
            const std::string& key = item.key();
            if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
                fail(child(path, key.c_str()), QStringLiteral("unknown field (known: %1)").arg(join(known)));
        }
    }

    std::optional<QString> string(const json& object, const QString& path, const char* key, bool required)
    {
        const auto it = object.find(key);
        if (it == object.end()) {
            if (required)
                fail(child(path, key), QStringLiteral("required"));
            return std::nullopt;
        }
        if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
            fail(child(path, key), QStringLiteral("expected a non-empty string"));
            return std::nullopt;
        }
        return QString::fromStdString(it->get<std::string>());
    }

    std::optional<double> number(
        const json& object, const QString& path, const char* key, bool required, double minExclusive)
    {
        const auto it = object.find(key);
        if (it == object.end()) {
            if (required)
                fail(child(path, key), QStringLiteral("required"));
            return std::nullopt;
        }
        if (!it->is_number()) {
            fail(child(path, key), QStringLiteral("expected a number"));
            return std::nullopt;
        }
        const double v = it->get<double>();
        if (!(v > minExclusive)) {
            fail(
                child(path, key), QStringLiteral("expected a number greater than %1, got %2").arg(minExclusive).arg(v));
            return std::nullopt;
        }
        return v;
    }

    std::optional<int> integer(const json& object, const QString& path, const char* key, bool required, int minimum)
    {
        const auto it = object.find(key);
        if (it == object.end()) {
            if (required)
                fail(child(path, key), QStringLiteral("required"));
            return std::nullopt;
        }
        if (!it->is_number_integer()) {
            fail(child(path, key), QStringLiteral("expected a whole number"));
            return std::nullopt;
        }
        const long long v = it->get<long long>();
        if (v < minimum || v > std::numeric_limits<int>::max()) {
            fail(
                child(path, key), QStringLiteral("expected a whole number of at least %1, got %2").arg(minimum).arg(v));
            return std::nullopt;
        }
        return int(v);
    }

    std::optional<bool> boolean(const json& object, const QString& path, const char* key)
    {
        const auto it = object.find(key);
        if (it == object.end())
            return std::nullopt;
        if (!it->is_boolean()) {
            fail(child(path, key), QStringLiteral("expected true or false"));
            return std::nullopt;
        }
        return it->get<bool>();
    }

private:
    static QString join(std::initializer_list<const char*> names)
    {
        QStringList list;
        for (const char* n : names)
            list << QString::fromLatin1(n);
        return list.join(QStringLiteral(", "));
    }
};

} // namespace ks::spec
