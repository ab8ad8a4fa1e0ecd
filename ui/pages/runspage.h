#pragma once

#include "library/cataloguepicks.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace ks {

class RunsTableModel;
class TrendPlot;

/// The run library in the dashboard (docs/library.md): every catalogued
/// configuration-arm, newest first; filter as in `knobscope runs --where`,
/// sort by any column, open one file, compare picks from any files on the
/// Compare page, tag, forget or delete, and follow the selected configuration
/// across runs in the trend chart.
class RunsPage : public QWidget {
    Q_OBJECT
public:
    explicit RunsPage(QString libraryPath, QWidget* parent = nullptr);

    /// Reads the catalogue again (after a run or an open catalogued a file).
    void reload();
    QString libraryPath() const { return m_libraryPath; }
    /// Where Rescan starts looking (the dashboard's run folder).
    void setRunDirectory(const QString& dir) { m_runDirectory = dir; }
    RunsTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLineEdit* filterEdit() const { return m_filter; }
    TrendPlot* trendPlot() const { return m_trend; }
    /// Selects the shown rows `rows` (as the user would, for tests and --shot).
    void selectRows(const QList<int>& rows);
    /// The selected configuration-arms, in the order shown.
    std::vector<CataloguePick> selectedPicks() const;

signals:
    void openRequested(const QString& path);
    /// Two or more configuration-arms, to compare on the Compare page.
    void compareRequested(const std::vector<ks::CataloguePick>& picks);
    void status(const QString& text);

private:
    void applyFilter();
    void updateTrend();
    void updateButtons();
    void rescanFolder();
    void editTags();
    void deleteSelected();
    void exportTrend();
    QList<int> selectedRows() const;

    QString m_libraryPath;
    QString m_runDirectory;
    RunsTableModel* m_model;
    QLineEdit* m_filter;
    QLabel* m_count;
    QTableView* m_table;
    QComboBox* m_metric;
    TrendPlot* m_trend;
    QPushButton* m_open;
    QPushButton* m_compare;
    QPushButton* m_tags;
    QPushButton* m_delete;
};

} // namespace ks
