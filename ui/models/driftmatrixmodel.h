#pragma once

#include "drift/driftanalysis.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace ks {

/// Probes (rows) × probe passes (columns) of a drift report: each cell says
/// whether that output matched the reference of its model.
class DriftMatrixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int kStateRole = Qt::UserRole + 1; ///< int(ProbeState)

    using QAbstractTableModel::QAbstractTableModel;
    void setReport(const DriftReport& report);
    const DriftReport& report() const { return m_report; }
    /// The diff behind a changed cell, or nullptr.
    const DriftDiff* diffAt(const QModelIndex& index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    DriftReport m_report;
};

/// Shows only probes with a changed (or failed) output when asked to.
class ChangedProbesFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setChangedOnly(bool changedOnly);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_changedOnly = false;
};

} // namespace ks
