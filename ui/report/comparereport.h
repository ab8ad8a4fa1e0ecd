#pragma once

// The comparison's files, written from a loaded run file alone: the tables
// (CSV, Markdown) and the report folder (every chart of every arm as PNG and
// SVG, the tables, an index.md). The Compare page's buttons and `knobscope
// export --table/--report` both call these.

#include "compare/comparisontypes.h"

#include <QString>

namespace ks {

struct LoadedRunFile;

/// Writes every arm's table as CSV (a .csv path) or else Markdown.
bool writeCompareTable(const Comparison& compare, const QString& path, QString* error);
/// Writes every chart of every arm (PNG and SVG), the tables and an index.md into `directory`.
bool writeCompareReport(const LoadedRunFile& result, const QString& directory, QString* error);

} // namespace ks
