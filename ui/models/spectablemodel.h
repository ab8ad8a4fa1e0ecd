#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QPair>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// One array of an experiment spec ("configs" or "arms") as an editable table.
/// Each row is the spec's JSON object itself, so fields without a column and
/// unknown fields survive a load/edit/save round trip untouched. Cells accept
/// any text: a value of the wrong type is kept as typed and the spec validator,
/// not the table, says what is wrong (setProblems marks the cell).
class SpecTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// How typed text becomes JSON. Every kind but Text reads "a, b, c" as a list
    /// (a grid over those values); TextList is Text that may be such a list.
    enum class Kind { Text, TextList, Integer, Number, Auto };
    struct Column {
        QString key; ///< field name, or "knobs.NAME" for a nested field
        QString header;
        Kind kind = Kind::Text;
        QString toolTip;
    };

    SpecTableModel(QString arrayName, std::vector<Column> columns, nlohmann::json newRow, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    bool insertRows(int row, int count, const QModelIndex& parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent,
        int destinationChild) override;

    bool duplicateRow(int row);
    /// Adds a column for a nested field such as "knobs.max_num_seqs" (no-op if present).
    void addColumn(const Column& column);
    /// Adds a column for every "knobs" entry the rows have.
    void addKnobColumns(const QHash<QString, QString>& toolTips);

    void setRows(const nlohmann::json& array);
    nlohmann::json rows() const;
    /// Marks cells from validator paths such as "configs[1].knobs.max_num_seqs".
    void setProblems(const QHash<QString, QString>& problemsByPath);
    QString arrayName() const { return m_arrayName; }

private:
    const nlohmann::json* field(int row, const QString& key) const;
    QString problemAt(int row, int column) const;

    QString m_arrayName;
    std::vector<Column> m_columns;
    nlohmann::json m_newRow;
    std::vector<nlohmann::json> m_rows;
    QHash<QPair<int, int>, QString> m_problems;
    QHash<int, QString> m_rowProblems;
};

/// Text typed into a cell, as JSON of the column's kind where it parses; a
/// comma-separated list as a JSON list. cellText() writes a list back that way.
nlohmann::json cellValue(const QString& text, SpecTableModel::Kind kind);
QString cellText(const nlohmann::json& value);
/// The tooltip sentence on every knob column: how to type a grid.
QString gridHint();

} // namespace ks
