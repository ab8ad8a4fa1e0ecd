#pragma once

#include <QAbstractTableModel>

#include <nlohmann/json.hpp>

namespace ks {

/// One arm of a `compare` result: a row per configuration, the columns of
/// `knobscope compare --format md`, cell text from the core's formatter.
/// Significant ratios are bold; the baseline row says it is the baseline.
class CompareTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setArm(const nlohmann::json& arm);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    nlohmann::json m_arm;
};

} // namespace ks
