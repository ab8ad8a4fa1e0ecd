#include "models/runlistmodel.h"

#include "metrics/ttftsplit.h"

#include <QBrush>
#include <QColor>

namespace ks {

int RunListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Row& row = m_rows[std::size_t(index.row())];
    const bool warned = !row.warnings.isEmpty();
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RunColumn:
            return row.run;
        case ProgressColumn:
            return row.expected > 0 ? QStringLiteral("%1 / %2").arg(row.done).arg(row.expected)
                                    : QString::number(row.done);
        case TtftColumn:
            return row.ttftP50 >= 0 ? QString::number(row.ttftP50, 'f', 1) : QString();
        case BaselineColumn:
            return row.baselineRatio;
        case StatusColumn:
            return warned ? row.status + QStringLiteral(": ") + row.warnings.join(QStringLiteral("; ")) : row.status;
        default:
            return {};
        }
    case kProgressRole:
        return row.expected > 0 ? std::min(1000, row.done * 1000 / row.expected) : -1;
    case Qt::ToolTipRole:
        if (index.column() == BaselineColumn && !row.baselineTip.isEmpty())
            return row.baselineTip;
        if (index.column() == TtftColumn && !row.ttftSplit.isEmpty())
            return tr("TTFT split: %1").arg(row.ttftSplit);
        return index.column() == StatusColumn && warned ? row.warnings.join(QLatin1Char('\n')) : QVariant();
    case Qt::ForegroundRole:
        return index.column() == StatusColumn && warned ? QBrush(QColor(200, 120, 0)) : QVariant();
    default:
        return {};
    }
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RunColumn:
        return tr("Run");
    case ProgressColumn:
        return tr("Requests");
    case TtftColumn:
        return tr("TTFT p50 ms");
    case BaselineColumn:
        return tr("vs baseline (p50)");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

void RunListModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

int RunListModel::rowOf(const QString& run) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].run == run)
            return int(i);
    }
    return -1;
}

void RunListModel::changed(int row)
{
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void RunListModel::runStarted(const QString& run)
{
    if (rowOf(run) >= 0)
        return;
    beginInsertRows({}, rowCount(), rowCount());
    Row row;
    row.run = run;
    m_rows.push_back(std::move(row));
    endInsertRows();
}

void RunListModel::progressed(const QString& run, int done, int expected)
{
    const int row = rowOf(run);
    if (row < 0)
        return;
    m_rows[std::size_t(row)].done = done;
    m_rows[std::size_t(row)].expected = expected;
    changed(row);
}

void RunListModel::updateTtft(const QString& run, double p50Ms)
{
    const int row = rowOf(run);
    if (row < 0)
        return;
    m_rows[std::size_t(row)].ttftP50 = p50Ms;
    changed(row);
}

void RunListModel::updateBaselineRatio(const QString& run, const QString& text, const QString& toolTip)
{
    const int row = rowOf(run);
    if (row < 0)
        return;
    m_rows[std::size_t(row)].baselineRatio = text;
    m_rows[std::size_t(row)].baselineTip = toolTip;
    changed(row);
}

void RunListModel::clearBaselineRatios()
{
    for (Row& r : m_rows) {
        r.baselineRatio.clear();
        r.baselineTip.clear();
    }
    if (!m_rows.empty())
        emit dataChanged(index(0, BaselineColumn), index(rowCount() - 1, BaselineColumn));
}

void RunListModel::runFinished(const QString& run, const RunSummary& summary)
{
    int row = rowOf(run);
    if (row < 0) {
        runStarted(run);
        row = rowOf(run);
    }
    Row& r = m_rows[std::size_t(row)];
    r.status = summary.statusText();
    if (summary.requests)
        r.done = int(*summary.requests);
    if (r.expected == 0)
        r.expected = r.done;
    // The reader drops a wrong-typed p50, so it may be missing.
    if (summary.ttftMs && summary.ttftMs->p50)
        r.ttftP50 = *summary.ttftMs->p50;
    r.ttftSplit = ttftSplitBrief(summary.rest);
    r.warnings = summary.warnings.value_or(QStringList());
    if (summary.driftMismatches() >= 0) {
        const QString text
            = QStringLiteral("%1 of %2 probes changed").arg(summary.driftMismatches()).arg(summary.driftProbes());
        if (summary.driftMismatches() > 0)
            r.warnings << text;
        else
            r.status += QStringLiteral(": ") + text;
    }
    changed(row);
}

QStringList RunListModel::runs() const
{
    QStringList out;
    for (const Row& r : m_rows)
        out << r.run;
    return out;
}

} // namespace ks
