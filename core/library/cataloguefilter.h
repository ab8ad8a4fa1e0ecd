#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantList>

namespace ks {

/// What `knobscope runs --where` and the Runs page select. Empty fields match all.
struct CatalogueFilter {
    QString text; ///< a substring of the spec, configuration, arm, model, knobs, host or path
    QString model; ///< substrings, case-insensitive
    QString host;
    QString serverVersion;
    QString spec;
    QString config;
    QString arm;
    QString knobName; ///< with knobValue: the knob's value as the run line has it
    QString knobValue;
    QString since; ///< ISO date or date-time: started at or after
    QList<qint64> ids; ///< catalogue row ids (`id=12,34`); empty: any
    bool includeMissing = true;
};

/// Parses `--where` terms: FIELD=VALUE (id, model, host, server, spec, config,
/// arm, since, knob.NAME) or free text. False with `error` naming the term it cannot read.
bool parseCatalogueFilter(const QStringList& terms, CatalogueFilter* out, QString* error);

/// The WHERE clause (after "WHERE 1") that selects `filter` from the catalogue's
/// `arms a JOIN files f`, its values appended to `binds` in order.
QString catalogueWhere(const CatalogueFilter& filter, QVariantList* binds);

} // namespace ks
