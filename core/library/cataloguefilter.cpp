#include "library/cataloguefilter.h"

#include <QDate>
#include <QDateTime>

namespace ks {

namespace {

QString likeOf(const QString& s)
{
    QString escaped = s;
    escaped.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    escaped.replace(QLatin1Char('%'), QLatin1String("\\%"));
    escaped.replace(QLatin1Char('_'), QLatin1String("\\_"));
    return QLatin1Char('%') + escaped + QLatin1Char('%');
}

} // namespace

bool parseCatalogueFilter(const QStringList& terms, CatalogueFilter* out, QString* error)
{
    for (const QString& term : terms) {
        const qsizetype eq = term.indexOf(QLatin1Char('='));
        if (eq < 0) {
            out->text = out->text.isEmpty() ? term : out->text + QLatin1Char(' ') + term;
            continue;
        }
        const QString field = term.left(eq).trimmed();
        const QString value = term.mid(eq + 1).trimmed();
        if (field == QLatin1String("id")) {
            for (const QString& part : value.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool ok = false;
                const qint64 id = part.trimmed().remove(QLatin1Char('@')).toLongLong(&ok);
                if (!ok || id <= 0) {
                    *error = QStringLiteral("--where '%1': id wants catalogue ids such as 12 or 12,34").arg(term);
                    return false;
                }
                out->ids << id;
            }
        } else if (field == QLatin1String("model"))
            out->model = value;
        else if (field == QLatin1String("host"))
            out->host = value;
        else if (field == QLatin1String("server"))
            out->serverVersion = value;
        else if (field == QLatin1String("spec"))
            out->spec = value;
        else if (field == QLatin1String("config"))
            out->config = value;
        else if (field == QLatin1String("arm"))
            out->arm = value;
        else if (field == QLatin1String("since")) {
            if (!QDateTime::fromString(value, Qt::ISODate).isValid()
                && !QDate::fromString(value, Qt::ISODate).isValid()) {
                *error = QStringLiteral("--where '%1': since wants an ISO date such as 2026-12-01").arg(term);
                return false;
            }
            out->since = value;
        } else if (field.startsWith(QLatin1String("knob.")) && field.size() > 5) {
            out->knobName = field.mid(5);
            out->knobValue = value;
        } else {
            *error
                = QStringLiteral("--where '%1': unknown field '%2' (id, model, host, server, spec, config, arm, since, "
                                 "knob.NAME)")
                      .arg(term, field);
            return false;
        }
    }
    return true;
}

QString catalogueWhere(const CatalogueFilter& filter, QVariantList* binds)
{
    QString where;
    auto like = [&](const char* column, const QString& value) {
        if (value.isEmpty())
            return;
        where += QStringLiteral(" AND %1 LIKE ? ESCAPE '\\'").arg(QLatin1String(column));
        *binds << likeOf(value);
    };
    like("a.model", filter.model);
    like("f.host", filter.host);
    like("f.server_versions", filter.serverVersion);
    like("f.spec_name", filter.spec);
    like("a.config", filter.config);
    like("a.arm", filter.arm);
    if (!filter.text.isEmpty()) {
        where += QStringLiteral(" AND ("
                                "ifnull(f.spec_name, '') || ' ' || ifnull(a.config, '') || ' ' || ifnull(a.arm, '') || "
                                "' ' || ifnull(a.model, '') || ' ' || "
                                "ifnull(a.knobs, '') || ' ' || ifnull(f.host, '') || ' ' || ifnull(f.path, '') || ' ' "
                                "|| ifnull(f.tags, '')) LIKE ? ESCAPE '\\'");
        *binds << likeOf(filter.text);
    }
    if (!filter.knobName.isEmpty()) {
        where += QStringLiteral(" AND CAST(json_extract(a.knobs, ?) AS TEXT) = ?");
        *binds << QStringLiteral("$.\"%1\"").arg(filter.knobName) << filter.knobValue;
    }
    if (!filter.since.isEmpty()) {
        where += QStringLiteral(" AND f.started_at >= ?");
        *binds << filter.since;
    }
    if (!filter.ids.isEmpty()) {
        where += QStringLiteral(" AND a.id IN (%1)")
                     .arg(QStringList(filter.ids.size(), QStringLiteral("?")).join(QLatin1Char(',')));
        for (const qint64 id : filter.ids)
            *binds << id;
    }
    if (!filter.includeMissing)
        where += QStringLiteral(" AND f.missing = 0");
    return where;
}

} // namespace ks
