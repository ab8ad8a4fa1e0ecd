#pragma once

#include "models/spectablemodel.h"
#include "spec/experimentspec.h"

#include <QObject>

#include <nlohmann/json.hpp>

namespace ks {

/// The experiment being edited: the spec JSON (docs/experiments.md) with its
/// "configs" and "arms" arrays as table models. Saving writes the same file
/// `knobscope run SPEC.json` runs; validation is the core's spec validator.
class ExperimentDocument : public QObject {
    Q_OBJECT
public:
    explicit ExperimentDocument(QObject* parent = nullptr);

    /// Loads spec JSON. Fails only when the text is not a JSON object; an
    /// invalid spec still loads so its problems can be shown and fixed.
    bool load(const QByteArray& json, QString* error);
    nlohmann::json toJson() const;
    QByteArray toBytes() const;

    /// A scalar by dotted path, e.g. "target.base_url"; null when absent.
    nlohmann::json value(const QString& path) const;
    /// Sets (or with null, removes) a scalar or object by dotted path.
    void setValue(const QString& path, const nlohmann::json& value);

    SpecTableModel* configs() { return &m_configs; }
    SpecTableModel* arms() { return &m_arms; }

    /// Runs the validator, marks the tables, and returns the spec or the problems.
    std::variant<ExperimentSpec, std::vector<SpecError>> validate();
    const QHash<QString, QString>& problems() const { return m_problems; }

    static nlohmann::json newExperiment();
    static const QHash<QString, QString>& knobToolTips();

signals:
    void changed();
    void loaded();
    void problemsChanged(const QHash<QString, QString>& problemsByPath);

private:
    nlohmann::json m_doc;
    SpecTableModel m_configs;
    SpecTableModel m_arms;
    QHash<QString, QString> m_problems;
};

} // namespace ks
