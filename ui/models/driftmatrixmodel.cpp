#include "models/driftmatrixmodel.h"

#include <QBrush>
#include <QColor>

namespace ks {

void DriftMatrixModel::setReport(const DriftReport& report)
{
    beginResetModel();
    m_report = report;
    endResetModel();
}

int DriftMatrixModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_report.probes.size());
}

int DriftMatrixModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_report.columns.size());
}

const DriftDiff* DriftMatrixModel::diffAt(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const QString& probe = m_report.probes[index.row()];
    for (const DriftDiff& d : m_report.diffs) {
        if (d.probe == probe && d.column == index.column())
            return &d;
    }
    return nullptr;
}

QVariant DriftMatrixModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ProbeState state = m_report.cells[std::size_t(index.row())][std::size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
        switch (state) {
        case ProbeState::Same:
            return QStringLiteral("=");
        case ProbeState::Changed:
            return QStringLiteral("≠");
        case ProbeState::Error:
            return QStringLiteral("!");
        case ProbeState::Missing:
            return QStringLiteral("–");
        }
        return {};
    case kStateRole:
        return int(state);
    case Qt::ToolTipRole: {
        const QByteArray& hash = m_report.hashes[std::size_t(index.row())][std::size_t(index.column())];
        const QString what = state == ProbeState::Same ? tr("same as the reference")
            : state == ProbeState::Changed             ? tr("differs from the reference (select to see where)")
            : state == ProbeState::Error               ? tr("the request failed")
                                                       : tr("no output to compare");
        return hash.isEmpty()
            ? what
            : what + QStringLiteral("\nsha256 ") + QString::fromLatin1(hash.left(16)) + QStringLiteral("…");
    }
    case Qt::TextAlignmentRole:
        return Qt::AlignCenter;
    default:
        return {};
    }
}

QVariant DriftMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section >= 0 && section < m_report.probes.size() ? m_report.probes[section] : QVariant();
    return section >= 0 && section < int(m_report.columns.size()) ? m_report.columns[std::size_t(section)].label()
                                                                  : QVariant();
}

void ChangedProbesFilter::setChangedOnly(bool changedOnly)
{
    m_changedOnly = changedOnly;
    invalidateFilter();
}

bool ChangedProbesFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (!m_changedOnly)
        return true;
    const QAbstractItemModel* model = sourceModel();
    for (int c = 0; c < model->columnCount(sourceParent); ++c) {
        const int state = model->index(sourceRow, c, sourceParent).data(DriftMatrixModel::kStateRole).toInt();
        if (state == int(ProbeState::Changed) || state == int(ProbeState::Error))
            return true;
    }
    return false;
}

} // namespace ks
