#pragma once

#include <QList>
#include <QString>

class QComboBox;
class QWidget;

namespace ks {

class ComparePage;

/// The Compare page's export controls, in layout order: chart size, Export
/// chart, Export table, Export report, Export HTML report. Charts follow the current arm and metric.
QList<QWidget*> createExportControls(ComparePage* page, const QComboBox* arm, const QComboBox* metric);

} // namespace ks
