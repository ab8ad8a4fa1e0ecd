#include "import/fieldreader.h"

#include <cmath>

namespace ks {

const nlohmann::json* FieldReader::find(const nlohmann::json& object, const char* key, const QString& path, Need need)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        if (need == Need::Expected)
            issue(QStringLiteral("%1: missing; %2").arg(path, m_consequence));
        return nullptr;
    }
    return &*it;
}

void FieldReader::wrongType(const QString& path, const char* expected, const nlohmann::json& got)
{
    issue(QStringLiteral("%1: expected %2, got %3; %4")
              .arg(path, QLatin1String(expected), jsonTypeName(got), m_consequence));
}

std::optional<double> FieldReader::number(const nlohmann::json& object, const char* key, const QString& path, Need need)
{
    const nlohmann::json* value = find(object, key, path, need);
    if (!value)
        return std::nullopt;
    return element(*value, path);
}

std::optional<double> FieldReader::element(const nlohmann::json& value, const QString& path)
{
    if (!value.is_number()) {
        wrongType(path, "a number", value);
        return std::nullopt;
    }
    const double number = value.get<double>();
    if (!std::isfinite(number)) {
        issue(QStringLiteral("%1: not a finite number; %2").arg(path, m_consequence));
        return std::nullopt;
    }
    return number;
}

std::optional<QString> FieldReader::string(
    const nlohmann::json& object, const char* key, const QString& path, Need need)
{
    const nlohmann::json* value = find(object, key, path, need);
    if (!value)
        return std::nullopt;
    if (!value->is_string()) {
        wrongType(path, "a string", *value);
        return std::nullopt;
    }
    return QString::fromStdString(value->get<std::string>());
}

const nlohmann::json* FieldReader::array(const nlohmann::json& object, const char* key, const QString& path, Need need)
{
    const nlohmann::json* value = find(object, key, path, need);
    if (value && !value->is_array()) {
        wrongType(path, "an array", *value);
        return nullptr;
    }
    return value;
}

const nlohmann::json* FieldReader::object(const nlohmann::json& parent, const char* key, const QString& path, Need need)
{
    const nlohmann::json* value = find(parent, key, path, need);
    if (value && !value->is_object()) {
        wrongType(path, "an object", *value);
        return nullptr;
    }
    return value;
}

} // namespace ks
