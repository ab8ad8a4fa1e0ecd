#pragma once

#include "server/launchplan.h"

#include <QDialog>

class QPlainTextEdit;
class QPushButton;

namespace ks {

/// Asks before the dashboard starts a server command from an experiment file
/// it has not been told to trust (LaunchTrust): every configuration's command
/// exactly as it would run, the working directory, and Trust and run / Cancel.
/// Cancel is the default button, so Enter does not run a stranger's command;
/// the commands are selectable text (Tab, then the keyboard) to copy and read.
class LaunchTrustDialog : public QDialog {
    Q_OBJECT
public:
    LaunchTrustDialog(const LaunchPlan& plan, const QString& specPath, QWidget* parent = nullptr);

    /// One `# CONFIG` line and one shell-quoted command line per configuration.
    QString commandText() const;
    QPushButton* trustButton() const { return m_trust; }
    QPushButton* cancelButton() const { return m_cancel; }

private:
    QPlainTextEdit* m_commands;
    QPushButton* m_trust;
    QPushButton* m_cancel;
};

} // namespace ks
