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

namespace {

// SQLite's text of a REAL: 15 significant digits, and ".0" on a whole number.
QString realText(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.15g", value);
    QString out = QString::fromLatin1(text);
    if (!out.contains(QLatin1Char('.')) && !out.contains(QLatin1Char('e')))
        out += QStringLiteral(".0");
    return out;
}

QString parsedKnobText(const QString& knobs, const QString& name)
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
    if (it->is_number())
        return realText(it->get<double>());
    return QString::fromStdString(it->dump()); // arrays and objects: their JSON text
}

} // namespace

QString knobText(const QString& knobs, const QString& name)
{
    // Written by hand for the common case, a top-level "NAME": scalar in the compact
    // JSON the catalogue stores: parsing every row's knobs with nlohmann/json made a
    // knob filter over 30,000 rows take 79 ms (bench/library_filter). Anything else
    // (escapes, nesting, a name that also appears inside a value) is parsed properly.
    const QString key = QLatin1Char('"') + name + QStringLiteral("\":");
    const qsizetype at = knobs.indexOf(key);
    if (at < 0)
        return knobs.contains(QLatin1Char('\\')) ? parsedKnobText(knobs, name) : QString();
    if (knobs.indexOf(key, at + 1) >= 0 || knobs.contains(QLatin1Char('\\')) || knobs.indexOf(QLatin1Char('{'), 1) >= 0
        || knobs.contains(QLatin1Char('[')))
        return parsedKnobText(knobs, name); // the key may be nested, repeated or escaped
    const qsizetype start = at + key.size();
    if (start >= knobs.size())
        return {};
    const QChar first = knobs[start];
    if (first == QLatin1Char('{') || first == QLatin1Char('['))
        return parsedKnobText(knobs, name);
    if (first == QLatin1Char('"')) {
        const qsizetype end = knobs.indexOf(QLatin1Char('"'), start + 1);
        return end < 0 ? parsedKnobText(knobs, name) : knobs.mid(start + 1, end - start - 1);
    }
    qsizetype end = start;
    while (end < knobs.size() && knobs[end] != QLatin1Char(',') && knobs[end] != QLatin1Char('}'))
        ++end;
    const QStringView token = QStringView(knobs).mid(start, end - start);
    if (token == QLatin1String("true"))
        return QStringLiteral("1");
    if (token == QLatin1String("false"))
        return QStringLiteral("0");
    if (token == QLatin1String("null"))
        return {};
    bool whole = false;
    const qint64 integer = token.toLongLong(&whole);
    if (whole)
        return QString::number(integer);
    bool ok = false;
    const double real = token.toDouble(&ok);
    return ok ? realText(real) : parsedKnobText(knobs, name);
}

bool catalogueRowMatches(const CatalogueRow& row, const CatalogueFilter& filter)
{
    if (!holds(row.arm.model, filter.model) || !holds(row.file.host, filter.host)
        || !holds(row.file.serverVersions, filter.serverVersion) || !holds(row.file.specName, filter.spec)
        || !holds(row.arm.config, filter.config) || !holds(row.arm.arm, filter.arm))
        return false;
    if (!filter.text.isEmpty()) {
        const QString* fields[] = { &row.file.specName, &row.arm.config, &row.arm.arm, &row.arm.model, &row.arm.knobs,
            &row.file.host, &row.file.path, &row.tags };
        // SQL matches the fields joined by spaces; text without a space can only match inside one field.
        bool found = false;
        if (!filter.text.contains(QLatin1Char(' '))) {
            for (const QString* field : fields)
                found = found || field->contains(filter.text, Qt::CaseInsensitive);
        } else {
            QStringList all;
            for (const QString* field : fields)
                all << *field;
            found = all.join(QLatin1Char(' ')).contains(filter.text, Qt::CaseInsensitive);
        }
        if (!found)
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
