#pragma once

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QTableView;
class QTextEdit;

namespace ks {

class BarChart;
class ChangedProbesFilter;
class DriftMatrixModel;
struct DriftReport;
struct LoadedRunFile;

/// The Drift page: the probe × pass matrix (same, changed, error), the counts
/// within a run, across a restart and across configurations, and for a selected
/// changed cell the reference and the changed output side by side with the
/// first divergence highlighted. The analysis is the core's analyzeDrift().
class DriftPage : public QWidget {
    Q_OBJECT
public:
    explicit DriftPage(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const LoadedRunFile> result);
    DriftMatrixModel* matrix() const { return m_model; }
    ChangedProbesFilter* filter() const { return m_filter; }
    BarChart* counts() const { return m_bars; }
    /// Selects a cell (source coordinates) and shows its texts.
    void showCell(int row, int column);
    QString referenceText() const;
    QString changedText() const;

private:
    void showDiff(const QModelIndex& proxyIndex);

    DriftMatrixModel* m_model;
    ChangedProbesFilter* m_filter;
    QTableView* m_view;
    QCheckBox* m_changedOnly;
    QLabel* m_summary;
    QLabel* m_where;
    QTextEdit* m_reference;
    QTextEdit* m_changed;
    BarChart* m_bars;
};

} // namespace ks
