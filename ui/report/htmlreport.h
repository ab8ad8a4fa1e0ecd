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
/// the chart layer, ui/charts/); a QApplication must exist. With `libraryPath`
/// (a run library, docs/library.md), each configuration-arm of the file that the
/// library holds two or more runs of gets its TTFT p99 trend, change points marked.
bool writeHtmlReport(const LoadedRunFile& result, const QString& path, QString* error, const QString& libraryPath = {});

} // namespace ks
