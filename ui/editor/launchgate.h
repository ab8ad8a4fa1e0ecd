#pragma once

// Between Run and the run controller: the editor's experiment is validated,
// and a server command from a file nobody trusted is shown and asked about
// first (LaunchTrust decides, a LaunchTrustDialog asks).

#include "launchtrust.h"

#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;

namespace ks {

class ExperimentDocument;
class ExperimentEditor;
class LaunchTrustDialog;
struct ExperimentSpec;

class LaunchGate : public QObject {
    Q_OBJECT
public:
    LaunchGate(ExperimentDocument* document, ExperimentEditor* editor, Settings* settings, QWidget* window);

    /// What running the editor's experiment would start (empty when it does not validate).
    LaunchPlan currentPlan() const;
    /// Whose the editor's experiment is (opened, saved, new), for what must be asked.
    LaunchTrust& trust() { return m_trust; }
    /// True while the question about a command is open.
    bool isAsking() const;
    /// Brings the open question to the front.
    void raise();

    /// Validates the editor's experiment (`specPath` names it in the question):
    /// approved() at once when it may run, invalid() when it does not validate,
    /// else asks, and approved() or declined() once the user answers.
    void request(const QString& specPath);

signals:
    void approved(const ExperimentSpec& spec);
    /// The editor marks the problems; `problems` lists them, a line each.
    void invalid(const QString& problems);
    void declined();
    void logged(const QString& line);

private:
    void ask(const ExperimentSpec& spec, const LaunchPlan& plan, const QString& specPath);

    ExperimentDocument* m_document;
    ExperimentEditor* m_editor;
    QWidget* m_window;
    LaunchTrust m_trust;
    QPointer<LaunchTrustDialog> m_dialog;
};

} // namespace ks
