#pragma once

#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

class QComboBox;
class QWidget;

namespace ks {

class ComparePage;
struct LoadedRunFile;

/// The Compare page's export controls, in layout order: chart size, Export
/// chart, Export table, Export report, Export HTML report. Charts follow the current arm and metric.
QList<QWidget*> createExportControls(ComparePage* page, const QComboBox* arm, const QComboBox* metric);
/// Writes every arm's table as CSV (a .csv path) or else Markdown.
bool writeCompareTable(const nlohmann::json& compare, const QString& path, QString* error);
/// Writes every chart of every arm (PNG and SVG), the tables and an index.md into `directory`.
bool writeCompareReport(ComparePage& page, const LoadedRunFile& result, const QString& directory, QString* error);

} // namespace ks
