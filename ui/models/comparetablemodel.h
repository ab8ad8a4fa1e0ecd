#pragma once

#include "compare/comparisontypes.h"

#include <QAbstractTableModel>
#include <QStringList>

namespace ks {

/// One arm of a `compare` result: a row per configuration, the columns of
/// `knobscope compare --format md`, cell text from the core's formatter.
/// Significant ratios are bold; the baseline row says it is the baseline.
class CompareTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    /// `baselineRows`: rows read as baselines besides the arm's (a sweep's steps,
    /// one per step); `plainRows`: rows shown with values only, no baseline label.
    void setArm(ComparedArm arm, QStringList baselineRows = {}, QStringList plainRows = {});
    void clear() { setArm({}); }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ComparedArm m_arm;
    QStringList m_baselineRows, m_plainRows;
};

} // namespace ks
