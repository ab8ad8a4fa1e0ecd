#include "library/cataloguematch.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace ks {

namespace {

bool holds(const QString& haystack, const QString& needle)
{
    return needle.isEmpty() || haystack.contains(needle, Qt::CaseInsensitive);
}

} // namespace

QString knobText(const QString& knobs, const QString& name)
{
    const nlohmann::json parsed = nlohmann::json::parse(knobs.toStdString(), nullptr, false);
    if (!parsed.is_object())
        return {};
    const auto it = parsed.find(name.toStdString());
    if (it == parsed.end() || it->is_null())
        return {};
    if (it->is_string())
        return QString::fromStdString(it->get<std::string>());
    if (it->is_boolean())
        return it->get<bool>() ? QStringLiteral("1") : QStringLiteral("0");
    if (it->is_number_integer())
        return QString::number(it->get<qint64>());
    if (it->is_number()) {
        char text[32]; // SQLite prints a REAL cast to TEXT with 15 significant digits
        std::snprintf(text, sizeof text, "%.15g", it->get<double>());
        QString out = QString::fromLatin1(text);
        if (!out.contains(QLatin1Char('.')) && !out.contains(QLatin1Char('e')))
            out += QStringLiteral(".0");
        return out;
    }
    return QString::fromStdString(it->dump()); // arrays and objects: their JSON text
}

bool catalogueRowMatches(const CatalogueRow& row, const CatalogueFilter& filter)
{
    if (!holds(row.arm.model, filter.model) || !holds(row.file.host, filter.host)
        || !holds(row.file.serverVersions, filter.serverVersion) || !holds(row.file.specName, filter.spec)
        || !holds(row.arm.config, filter.config) || !holds(row.arm.arm, filter.arm))
        return false;
    if (!filter.text.isEmpty()) {
        const QString all = QStringList { row.file.specName, row.arm.config, row.arm.arm, row.arm.model, row.arm.knobs,
            row.file.host, row.file.path, row.tags }
                                .join(QLatin1Char(' '));
        if (!all.contains(filter.text, Qt::CaseInsensitive))
            return false;
    }
    if (!filter.knobName.isEmpty()) {
        const QString value = knobText(row.arm.knobs, filter.knobName);
        if (value.isNull() || value != filter.knobValue)
            return false;
    }
    if (!filter.since.isEmpty() && row.file.startedAt < filter.since)
        return false;
    if (!filter.ids.isEmpty() && !filter.ids.contains(row.id))
        return false;
    return filter.includeMissing || !row.missing;
}

} // namespace ks
