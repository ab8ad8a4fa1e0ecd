#pragma once

// The experiment file behind the editor: New, Open, Save and Save As, the
// recent files, and whose the experiment is (LaunchTrust) as it is opened,
// saved or taken from a run file.

#include "editor/launchtrust.h"

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

class QWidget;

namespace ks {

class ExperimentDocument;
class LaunchGate;
class Settings;

class SpecFiles : public QObject {
    Q_OBJECT
public:
    SpecFiles(ExperimentDocument* document, LaunchGate* gate, Settings* settings, QWidget* window);

    /// The open experiment's file: empty for a new one or one taken from a run file; ":/…" when bundled.
    const QString& path() const { return m_path; }

    /// Opens an experiment file. A bundled experiment or installed template is
    /// trusted as knobscope's own; others are trusted if the user trusted the
    /// same commands before, or with `NamedToRun`. Says why when it cannot.
    bool open(const QString& path, LaunchTrust::Origin origin);
    void newExperiment();
    /// Shows `spec`, the experiment a run file recorded, as its author's, under no file name.
    bool showFromRunFile(const nlohmann::json& spec);
    /// Saves in place, or asks for a name when the spec is new, bundled or a template.
    void save();
    /// Writes the editor's experiment to `path`; a trusted experiment stays trusted there.
    bool saveTo(const QString& path);
    void saveAsDialog();
    void openDialog();

signals:
    void pathChanged();
    void recentChanged();
    void logged(const QString& line);
    void saved(const QString& path);

private:
    void remember(const QString& path);

    ExperimentDocument* m_document;
    LaunchGate* m_gate;
    Settings* m_settings;
    QWidget* m_window;
    QString m_path;
};

} // namespace ks
