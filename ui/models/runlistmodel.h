#pragma once

#include "store/summaryline.h"

#include <QAbstractTableModel>

#include <vector>

namespace ks {

/// The runs (configuration × arm) of the experiment on screen: progress,
/// status, and the warnings the core raised, one row per run in start order.
class RunListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RunColumn, ProgressColumn, TtftColumn, BaselineColumn, StatusColumn, ColumnCount };
    static constexpr int kProgressRole = Qt::UserRole + 1; ///< 0..1000, or -1 when unknown

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void clear();
    void runStarted(const QString& run);
    void progressed(const QString& run, int done, int expected);
    void updateTtft(const QString& run, double p50Ms);
    /// The run against the Live page's baseline ("TTFT 1.05× · TPOT 0.98×"), with how it was computed.
    void updateBaselineRatio(const QString& run, const QString& text, const QString& toolTip);
    void clearBaselineRatios();
    void runFinished(const QString& run, const RunSummary& summary);
    QStringList runs() const;

private:
    struct Row {
        QString run;
        int done = 0;
        int expected = 0;
        double ttftP50 = -1;
        QString ttftSplit; ///< where TTFT went, when the summary knows (ttftSplitBrief)
        QString baselineRatio, baselineTip;
        QString status = QStringLiteral("running");
        QStringList warnings;
    };
    int rowOf(const QString& run) const;
    void changed(int row);

    std::vector<Row> m_rows;
};

} // namespace ks
