#include "models/spectablemodel.h"

#include <QBrush>
#include <QColor>
#include <QRegularExpression>

#include <algorithm>

namespace ks {

namespace {

QStringList keyParts(const QString& key)
{
    return key.split(QLatin1Char('.'));
}

} // namespace

namespace {

nlohmann::json scalarValue(const QString& t, SpecTableModel::Kind kind)
{
    if (kind == SpecTableModel::Kind::Text || kind == SpecTableModel::Kind::TextList)
        return t.toStdString();
    bool ok = false;
    const qlonglong whole = t.toLongLong(&ok);
    if (ok)
        return whole;
    if (kind != SpecTableModel::Kind::Integer) {
        const double number = t.toDouble(&ok);
        if (ok)
            return number;
    }
    if (kind == SpecTableModel::Kind::Auto && (t == QLatin1String("true") || t == QLatin1String("false")))
        return t == QLatin1String("true");
    return t.toStdString(); // kept as typed: the validator names the problem
}

} // namespace

QString gridHint()
{
    return QStringLiteral("\n\nSeveral values separated by commas (16, 32, 64) make a grid: one configuration per "
                          "value, and per combination with other lists.");
}

nlohmann::json cellValue(const QString& text, SpecTableModel::Kind kind)
{
    QString t = text.trimmed();
    if (kind == SpecTableModel::Kind::Text)
        return t.toStdString();
    // "16, 32, 64" (or "[16, 32, 64]") is a list: a grid over those values.
    const bool bracketed = t.startsWith(QLatin1Char('[')) && t.endsWith(QLatin1Char(']'));
    if (!bracketed && !t.contains(QLatin1Char(',')))
        return scalarValue(t, kind);
    if (bracketed)
        t = t.mid(1, t.size() - 2);
    nlohmann::json list = nlohmann::json::array();
    for (const QString& part : t.split(QLatin1Char(','))) {
        QString item = part.trimmed();
        if (item.size() >= 2 && item.startsWith(QLatin1Char('"')) && item.endsWith(QLatin1Char('"')))
            item = item.mid(1, item.size() - 2);
        if (!item.isEmpty()) // "16, 32," is two values, not a third empty one
            list.push_back(scalarValue(item, kind));
    }
    return list;
}

QString cellText(const nlohmann::json& value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_null())
        return {};
    if (value.is_array() && std::all_of(value.begin(), value.end(), [](const nlohmann::json& v) {
            return v.is_primitive() && !v.is_null();
        })) {
        QStringList items;
        for (const nlohmann::json& v : value)
            items << cellText(v);
        return items.join(QStringLiteral(", "));
    }
    return QString::fromStdString(value.dump());
}

SpecTableModel::SpecTableModel(QString arrayName, std::vector<Column> columns, nlohmann::json newRow, QObject* parent)
    : QAbstractTableModel(parent)
    , m_arrayName(std::move(arrayName))
    , m_columns(std::move(columns))
    , m_newRow(std::move(newRow))
{
}

int SpecTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SpecTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

const nlohmann::json* SpecTableModel::field(int row, const QString& key) const
{
    const nlohmann::json* at = &m_rows[std::size_t(row)];
    for (const QString& part : keyParts(key)) {
        if (!at->is_object())
            return nullptr;
        const auto it = at->find(part.toStdString());
        if (it == at->end())
            return nullptr;
        at = &*it;
    }
    return at;
}

QString SpecTableModel::problemAt(int row, int column) const
{
    const QString cell = m_problems.value({ row, column });
    if (!cell.isEmpty())
        return cell;
    return column == 0 ? m_rowProblems.value(row) : QString();
}

QVariant SpecTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Column& column = m_columns[std::size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole: {
        const nlohmann::json* value = field(index.row(), column.key);
        return value ? cellText(*value) : QString();
    }
    case Qt::ToolTipRole: {
        const QString problem = problemAt(index.row(), index.column());
        return problem.isEmpty() ? column.toolTip : problem;
    }
    case Qt::BackgroundRole:
        return problemAt(index.row(), index.column()).isEmpty() ? QVariant() : QBrush(QColor(220, 60, 60, 90));
    default:
        return {};
    }
}

QVariant SpecTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical)
        return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
    if (section < 0 || section >= int(m_columns.size()))
        return {};
    if (role == Qt::DisplayRole)
        return m_columns[std::size_t(section)].header;
    if (role == Qt::ToolTipRole)
        return m_columns[std::size_t(section)].toolTip;
    return {};
}

Qt::ItemFlags SpecTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

bool SpecTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return false;
    const Column& column = m_columns[std::size_t(index.column())];
    const QString text = value.toString();
    nlohmann::json* at = &m_rows[std::size_t(index.row())];
    const QStringList parts = keyParts(column.key);
    for (int i = 0; i + 1 < parts.size(); ++i) {
        nlohmann::json& next = (*at)[parts[i].toStdString()];
        if (!next.is_object())
            next = nlohmann::json::object();
        at = &next;
    }
    if (text.trimmed().isEmpty() && column.kind != Kind::Text && column.kind != Kind::TextList)
        at->erase(parts.back().toStdString()); // an empty number cell means "not set"
    else
        (*at)[parts.back().toStdString()] = cellValue(text, column.kind);
    emit dataChanged(index, index, { Qt::DisplayRole, Qt::EditRole });
    return true;
}

bool SpecTableModel::insertRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || row > rowCount() || count < 1)
        return false;
    beginInsertRows({}, row, row + count - 1);
    m_rows.insert(m_rows.begin() + row, std::size_t(count), m_newRow);
    endInsertRows();
    return true;
}

bool SpecTableModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount())
        return false;
    beginRemoveRows({}, row, row + count - 1);
    m_rows.erase(m_rows.begin() + row, m_rows.begin() + row + count);
    endRemoveRows();
    return true;
}

bool SpecTableModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
    const QModelIndex& destinationParent, int destinationChild)
{
    if (sourceParent.isValid() || destinationParent.isValid() || count < 1 || sourceRow < 0
        || sourceRow + count > rowCount() || destinationChild < 0 || destinationChild > rowCount()
        || (destinationChild >= sourceRow && destinationChild <= sourceRow + count))
        return false;
    beginMoveRows({}, sourceRow, sourceRow + count - 1, {}, destinationChild);
    std::vector<nlohmann::json> moved(m_rows.begin() + sourceRow, m_rows.begin() + sourceRow + count);
    m_rows.erase(m_rows.begin() + sourceRow, m_rows.begin() + sourceRow + count);
    const int insertAt = destinationChild > sourceRow ? destinationChild - count : destinationChild;
    m_rows.insert(m_rows.begin() + insertAt, moved.begin(), moved.end());
    endMoveRows();
    return true;
}

bool SpecTableModel::duplicateRow(int row)
{
    if (row < 0 || row >= rowCount())
        return false;
    nlohmann::json copy = m_rows[std::size_t(row)];
    for (const char* key : { "label", "name" }) {
        if (copy.contains(key) && copy[key].is_string())
            copy[key] = copy[key].get<std::string>() + "-copy"; // labels and names must stay unique
    }
    beginInsertRows({}, row + 1, row + 1);
    m_rows.insert(m_rows.begin() + row + 1, std::move(copy));
    endInsertRows();
    return true;
}

void SpecTableModel::addColumn(const Column& column)
{
    for (const Column& c : m_columns) {
        if (c.key == column.key)
            return;
    }
    beginInsertColumns({}, columnCount(), columnCount());
    m_columns.push_back(column);
    endInsertColumns();
}

void SpecTableModel::addKnobColumns(const QHash<QString, QString>& toolTips)
{
    for (const nlohmann::json& row : m_rows) {
        if (!row.contains("knobs") || !row["knobs"].is_object())
            continue;
        for (const auto& [name, value] : row["knobs"].items()) {
            const QString knob = QString::fromStdString(name);
            addColumn({ QStringLiteral("knobs.") + knob, knob, Kind::Auto,
                toolTips.value(knob, QStringLiteral("Server knob {%1} in the server command").arg(knob))
                    + gridHint() });
        }
    }
}

void SpecTableModel::setRows(const nlohmann::json& array)
{
    beginResetModel();
    m_rows.clear();
    m_problems.clear();
    m_rowProblems.clear();
    if (array.is_array()) {
        for (const nlohmann::json& row : array)
            m_rows.push_back(row);
    }
    endResetModel();
}

nlohmann::json SpecTableModel::rows() const
{
    return nlohmann::json(m_rows);
}

void SpecTableModel::setProblems(const QHash<QString, QString>& problemsByPath)
{
    m_problems.clear();
    m_rowProblems.clear();
    static const QRegularExpression pattern(QStringLiteral("^(\\w+)\\[(\\d+)\\](?:\\.(.+))?$"));
    for (auto it = problemsByPath.begin(); it != problemsByPath.end(); ++it) {
        const auto match = pattern.match(it.key());
        if (!match.hasMatch() || match.captured(1) != m_arrayName)
            continue;
        const int row = match.captured(2).toInt();
        // A list element's problem ("knobs.max_num_seqs[2]") marks the list's cell.
        static const QRegularExpression element(QStringLiteral("\\[(\\d+)\\]$"));
        const auto elementMatch = element.match(match.captured(3));
        const QString key
            = elementMatch.hasMatch() ? match.captured(3).left(elementMatch.capturedStart()) : match.captured(3);
        const QString message = elementMatch.hasMatch()
            ? QStringLiteral("value %1: %2").arg(elementMatch.captured(1).toInt() + 1).arg(it.value())
            : it.value();
        int column = -1;
        for (std::size_t c = 0; c < m_columns.size(); ++c) {
            if (!key.isEmpty() && m_columns[c].key == key)
                column = int(c);
        }
        if (column >= 0) {
            QString& cell = m_problems[{ row, column }];
            cell += (cell.isEmpty() ? QString() : QStringLiteral("\n")) + message;
        } else {
            m_rowProblems.insert(row, key.isEmpty() ? it.value() : key + QStringLiteral(": ") + it.value());
        }
    }
    if (rowCount() > 0)
        emit dataChanged(
            index(0, 0), index(rowCount() - 1, columnCount() - 1), { Qt::BackgroundRole, Qt::ToolTipRole });
}

} // namespace ks
