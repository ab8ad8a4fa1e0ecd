#pragma once

#include <QString>

namespace ks {

struct LoadedRunFile;

/// Writes the whole comparison of `result` as one self-contained HTML file:
/// every chart that writeCompareReport() draws, inlined as SVG, the tables with
/// their 95 % intervals, knee and capacity of sweep arms, drift, warnings, the
/// diagnoses, the environment and the spec. The file refers to nothing outside
/// itself (no script, link, font or image URL), so it opens offline and can be
/// mailed or attached as it is. It builds no page (the charts are drawn by
/// the chart layer, ui/charts/); a QApplication must exist.
bool writeHtmlReport(const LoadedRunFile& result, const QString& path, QString* error);

} // namespace ks
