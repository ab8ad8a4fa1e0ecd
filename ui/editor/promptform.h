#pragma once

#include <QHash>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace ks {

class ExperimentDocument;

/// The experiment's `prompts` as form fields (docs/experiments.md, "Prompts"):
/// synthetic prompts with a length distribution and an optional shared prefix,
/// or a prompt file (OpenAI or ShareGPT), multi-turn sessions and the seed.
/// Every edit writes the whole `prompts` object back to the document; fields it
/// does not show are kept as they were. An arm's own `prompts` stays a JSON cell
/// of the arms table.
class PromptForm : public QWidget {
    Q_OBJECT
public:
    PromptForm(ExperimentDocument* document, QWidget* parent = nullptr);

    /// Shows the document's `prompts` (after a load).
    void refresh();
    /// Marks the fields the spec validator rejects, with its message as the tooltip.
    void showProblems(const QHash<QString, QString>& problems);

private:
    void write();
    void updateRows();
    QSpinBox* spin(const char* name, int minimum, int maximum, const QString& toolTip, const QString& unset = {});

    ExperimentDocument* m_document;
    QFormLayout* m_form;
    QComboBox* m_source;
    QComboBox* m_dist;
    QSpinBox* m_words; ///< fixed: the length; normal/lognormal: the mean
    QDoubleSpinBox* m_std;
    QSpinBox* m_min;
    QSpinBox* m_max;
    QCheckBox* m_prefix;
    QSpinBox* m_prefixes;
    QSpinBox* m_prefixWords;
    QWidget* m_fileRow;
    QLineEdit* m_path;
    QComboBox* m_format;
    QSpinBox* m_turns;
    QLineEdit* m_seed;
    QHash<QWidget*, QString> m_paths; ///< widget -> the spec path its problems are reported under
    nlohmann::json m_unshown; ///< fields of `prompts` the form has no widget for
    bool m_refreshing = false;
};

} // namespace ks
