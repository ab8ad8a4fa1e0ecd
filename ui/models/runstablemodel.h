#pragma once

#include "library/runcatalogue.h"

#include <QAbstractTableModel>

#include <vector>

namespace ks {

/// The run library's configuration-arms for the Runs page: every row read once,
/// filtered and sorted in memory (library/cataloguematch.h), so typing in the
/// filter never waits on the database.
class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        StartedColumn,
        SpecColumn,
        ConfigColumn,
        ArmColumn,
        ModelColumn,
        KnobsColumn,
        ServerColumn,
        HostColumn,
        RequestsColumn,
        ErrorsColumn,
        TtftP50Column,
        TtftP99Column,
        TpotP50Column,
        E2eP50Column,
        ReqPerSColumn,
        TokPerSColumn,
        MethodColumn,
        TagsColumn,
        PathColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    /// Every catalogued row, newest first as the catalogue lists them.
    void setRows(std::vector<CatalogueRow> rows);
    const std::vector<CatalogueRow>& allRows() const { return m_rows; }
    void setFilter(const CatalogueFilter& filter);
    /// The row shown at `row`; null when out of range.
    const CatalogueRow* rowAt(int row) const;
    int totalCount() const { return int(m_rows.size()); }

private:
    void refilter();

    std::vector<CatalogueRow> m_rows;
    std::vector<int> m_shown; ///< indices into m_rows, filtered and in display order
    CatalogueFilter m_filter;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace ks
