#pragma once

#include <QHash>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QLabel;
class QTableView;
class QGroupBox;
class QScrollArea;

namespace ks {

class ExperimentDocument;
class ModelCatalog;
class PromptForm;
class SearchForm;
class SpecTableModel;

/// The left panel: every field of an experiment spec, bound to an
/// ExperimentDocument. Fields and cells that the spec validator rejects are
/// marked with its message; the editor never blocks typing.
class ExperimentEditor : public QWidget {
    Q_OBJECT
public:
    ExperimentEditor(ExperimentDocument* document, QWidget* parent = nullptr);

    /// Validates now (also done 300 ms after each edit).
    void validateNow();
    QStringList problemTexts() const;
    void setRunning(bool running);
    /// Scrolls to the knob search (for screenshots).
    void revealSearch();

private:
    QWidget* field(const QString& path, const QString& toolTip, const QString& placeholder = {});
    QWidget* commandField(const QString& toolTip);
    QWidget* checkBox(const QString& path, const QString& text, bool defaultValue, const QString& toolTip);
    QWidget* tableWithButtons(SpecTableModel* model, QTableView** view, const QString& what);
    void refreshFields();
    void showProblems(const QHash<QString, QString>& problems);
    void refreshModels();

    ExperimentDocument* m_document;
    ModelCatalog* m_catalog;
    QHash<QString, QWidget*> m_fields; ///< spec path -> its widget
    QTableView* m_configView = nullptr;
    QTableView* m_armView = nullptr;
    QLabel* m_problems;
    QLabel* m_modelStatus;
    QLabel* m_estimate = nullptr; ///< "10 configurations × 3 arms, about 35 min"
    QGroupBox* m_probeBox = nullptr;
    PromptForm* m_promptForm = nullptr;
    QGroupBox* m_searchBox = nullptr;
    SearchForm* m_searchForm = nullptr;
    QStringList m_serverModels;
    QScrollArea* m_scroll = nullptr;
    QTimer m_validateTimer;
    bool m_refreshing = false;
};

} // namespace ks
