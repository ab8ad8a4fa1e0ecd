#include "models/runstablemodel.h"

#include "library/cataloguematch.h"

#include <QBrush>
#include <QPalette>

#include <algorithm>

namespace ks {

namespace {

std::optional<double> numberAt(const CatalogueRow& r, int column)
{
    switch (column) {
    case RunsTableModel::IdColumn:
        return double(r.id);
    case RunsTableModel::RequestsColumn:
        return double(r.arm.requests);
    case RunsTableModel::ErrorsColumn:
        return double(r.arm.errors);
    case RunsTableModel::TtftP50Column:
        return r.arm.ttftP50.value;
    case RunsTableModel::TtftP99Column:
        return r.arm.ttftP99.value;
    case RunsTableModel::TpotP50Column:
        return r.arm.tpotP50.value;
    case RunsTableModel::E2eP50Column:
        return r.arm.e2eP50.value;
    case RunsTableModel::ReqPerSColumn:
        return r.arm.reqPerS;
    case RunsTableModel::TokPerSColumn:
        return r.arm.outTokPerS;
    default:
        return std::nullopt;
    }
}

bool isNumeric(int column)
{
    return column == RunsTableModel::IdColumn
        || (column >= RunsTableModel::RequestsColumn && column <= RunsTableModel::TokPerSColumn);
}

QString textAt(const CatalogueRow& r, int column)
{
    switch (column) {
    case RunsTableModel::StartedColumn:
        return r.file.startedAt.left(19).replace(QLatin1Char('T'), QLatin1Char(' '));
    case RunsTableModel::SpecColumn:
        return r.file.specName;
    case RunsTableModel::ConfigColumn:
        return r.arm.config;
    case RunsTableModel::ArmColumn:
        return r.arm.arm;
    case RunsTableModel::ModelColumn:
        return r.arm.model;
    case RunsTableModel::KnobsColumn:
        return r.arm.knobs == QLatin1String("{}") ? QString() : r.arm.knobs;
    case RunsTableModel::ServerColumn:
        return r.file.serverVersions;
    case RunsTableModel::HostColumn:
        return r.file.host;
    case RunsTableModel::MethodColumn:
        return r.arm.intervalMethod;
    case RunsTableModel::TagsColumn:
        return r.tags;
    case RunsTableModel::PathColumn:
        return r.file.path;
    default:
        return {};
    }
}

QString figureText(const std::optional<double>& v, int decimals)
{
    return v ? QString::number(*v, 'f', decimals) : QString();
}

QString intervalText(const CatalogueFigure& f)
{
    if (!f.value)
        return {};
    if (!f.low || !f.high)
        return RunsTableModel::tr("%1 (no interval)").arg(*f.value, 0, 'f', 2);
    return RunsTableModel::tr("%1, 95 % interval [%2 – %3]")
        .arg(*f.value, 0, 'f', 2)
        .arg(*f.low, 0, 'f', 2)
        .arg(*f.high, 0, 'f', 2);
}

} // namespace

int RunsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_shown.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const CatalogueRow* RunsTableModel::rowAt(int row) const
{
    return row >= 0 && row < int(m_shown.size()) ? &m_rows[std::size_t(m_shown[std::size_t(row)])] : nullptr;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const
{
    const CatalogueRow* r = rowAt(index.row());
    if (!r)
        return {};
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case IdColumn:
            return QStringLiteral("@%1").arg(r->id);
        case RequestsColumn:
            return QString::number(r->arm.requests);
        case ErrorsColumn:
            return QString::number(r->arm.errors);
        case TtftP50Column:
        case TtftP99Column:
        case E2eP50Column:
            return figureText(numberAt(*r, column), 1);
        case TpotP50Column:
        case ReqPerSColumn:
            return figureText(numberAt(*r, column), 2);
        case TokPerSColumn:
            return figureText(numberAt(*r, column), 0);
        case PathColumn:
            return r->missing ? tr("%1 (missing)").arg(r->file.path) : r->file.path;
        default:
            return textAt(*r, column);
        }
    }
    if (role == Qt::TextAlignmentRole && isNumeric(column))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && r->missing)
        return QBrush(QPalette().color(QPalette::Disabled, QPalette::Text));
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case TtftP50Column:
            return intervalText(r->arm.ttftP50);
        case TtftP99Column:
            return intervalText(r->arm.ttftP99);
        case TpotP50Column:
            return intervalText(r->arm.tpotP50);
        case E2eP50Column:
            return intervalText(r->arm.e2eP50);
        case MethodColumn:
            return tr("How the intervals were made: rounds (repeats), calibrated (an A/A calibration) or within-run "
                      "(one run: run-to-run spread not measured)");
        default:
            break;
        }
        QString tip = r->file.path;
        if (r->missing)
            tip += tr("\nThe file is not at this path any more: Rescan finds a moved file again by its hash.");
        if (!r->file.note.isEmpty())
            tip += QLatin1Char('\n') + r->file.note;
        return tip;
    }
    return {};
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char* const kNames[] = { "ID", "Started", "Spec", "Config", "Arm", "Model", "Knobs", "Server", "Host",
        "Requests", "Errors", "TTFT p50 (ms)", "TTFT p99 (ms)", "TPOT p50 (ms)", "E2E p50 (ms)", "req/s", "tok/s",
        "Interval", "Tags", "File" };
    if (role == Qt::DisplayRole && section >= 0 && section < ColumnCount)
        return tr(kNames[section]);
    if (role == Qt::ToolTipRole && section == IdColumn)
        return tr("The catalogue id: knobscope compare @ID @ID compares two of them from the command line");
    return {};
}

void RunsTableModel::setRows(std::vector<CatalogueRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    refilter();
    endResetModel();
}

void RunsTableModel::setFilter(const CatalogueFilter& filter)
{
    beginResetModel();
    m_filter = filter;
    refilter();
    endResetModel();
}

void RunsTableModel::sort(int column, Qt::SortOrder order)
{
    beginResetModel();
    m_sortColumn = column;
    m_sortOrder = order;
    refilter();
    endResetModel();
}

void RunsTableModel::refilter()
{
    m_shown.clear();
    for (int i = 0; i < int(m_rows.size()); ++i)
        if (catalogueRowMatches(m_rows[std::size_t(i)], m_filter))
            m_shown.push_back(i);
    if (m_sortColumn < 0)
        return; // the catalogue's order: newest first
    const int column = m_sortColumn;
    const bool descending = m_sortOrder == Qt::DescendingOrder;
    // Rows without the figure go last whichever way the column is sorted.
    std::stable_sort(m_shown.begin(), m_shown.end(), [&](int a, int b) {
        const CatalogueRow& x = m_rows[std::size_t(a)];
        const CatalogueRow& y = m_rows[std::size_t(b)];
        if (isNumeric(column)) {
            const std::optional<double> u = numberAt(x, column), v = numberAt(y, column);
            if (!u || !v)
                return u.has_value() && !v.has_value();
            return descending ? *u > *v : *u < *v;
        }
        const int c = textAt(x, column).compare(textAt(y, column), Qt::CaseInsensitive);
        return descending ? c > 0 : c < 0;
    });
}

} // namespace ks
