#pragma once

#include <QStyledItemDelegate>

namespace ks {

/// Draws RunListModel::kProgressRole as a progress bar with the cell's text.
class ProgressDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace ks
