#pragma once

#include <QHash>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QToolButton;
class QVBoxLayout;

namespace ks {

class ExperimentDocument;

/// The experiment's `search` as form fields (docs/experiments.md, "Search" and
/// "Search over several knobs"): a row per knob (name, range, scale, whole
/// numbers, cheaper end), the arm whose figure is the objective, the objective,
/// its direction, the budget and the plateau's tolerance.
///
/// Edits write the `search` object back changed only where a field changed: a
/// loaded search that is not edited, or edited and set back, is the same JSON,
/// unknown fields and the one-knob form included. A second knob turns the
/// one-knob form into `knobs`.
class SearchForm : public QWidget {
    Q_OBJECT
public:
    SearchForm(ExperimentDocument* document, QWidget* parent = nullptr);

    /// Shows the document's `search` (after a load, or after the search was switched on).
    void refresh();
    /// Marks the fields the spec validator rejects, with its message as the tooltip.
    void showProblems(const QHash<QString, QString>& problems);
    /// A search to start from: the first configuration's numeric knobs that the
    /// server command uses, each over a log2 range around its value.
    static nlohmann::json startingSearch(const nlohmann::json& document);

private:
    struct KnobRow {
        QWidget* box = nullptr;
        QLineEdit* name = nullptr;
        QDoubleSpinBox* min = nullptr;
        QDoubleSpinBox* max = nullptr;
        QComboBox* scale = nullptr;
        QCheckBox* integer = nullptr;
        QComboBox* cheaper = nullptr;
    };

    void addRow(const QString& name, const nlohmann::json& range);
    void removeRow(QWidget* box);
    void clearRows();
    void numberRows();
    void fillArms();
    void write();
    nlohmann::json knobsJson() const;
    QString rowPath(const KnobRow& row) const;

    ExperimentDocument* m_document;
    QVBoxLayout* m_rowsLayout;
    std::vector<KnobRow> m_rows;
    QPushButton* m_addKnob;
    QFormLayout* m_form;
    QComboBox* m_arm;
    QComboBox* m_objective;
    QComboBox* m_direction;
    QSpinBox* m_budget;
    QDoubleSpinBox* m_tolerance;
    nlohmann::json m_loaded; ///< `search` as last read from the document: what unedited fields keep
    bool m_refreshing = false;
};

} // namespace ks
