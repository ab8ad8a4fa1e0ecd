#include "launchtrustdialog.h"

#include "server/serverlauncher.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ks {

namespace {
QString planText(const LaunchPlan& plan)
{
    QStringList lines;
    for (const ServerLaunch& launch : plan.launches) {
        // Which file runs matters as much as its arguments: a bare name is looked up beside knobscope, then on PATH.
        const QString program = ServerLauncher::resolveProgram(launch.argv.value(0));
        lines << QStringLiteral("# %1 (%2)")
                     .arg(launch.config,
                         program.isEmpty() ? QStringLiteral("program not found beside knobscope or on PATH")
                                           : QStringLiteral("runs %1").arg(program));
        lines << commandLine(launch);
    }
    return lines.join(QLatin1Char('\n'));
}
} // namespace

LaunchTrustDialog::LaunchTrustDialog(const LaunchPlan& plan, const QString& specPath, QWidget* parent)
    : QDialog(parent)
    , m_commands(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("launchTrustDialog"));
    setWindowTitle(tr("Run this experiment's server command?"));
    const QString what
        = specPath.isEmpty() ? tr("This experiment") : tr("The experiment %1").arg(QFileInfo(specPath).fileName());
    auto* intro = new QLabel(tr("<p>%1 starts a server with the command below, as you, in <b>%2</b>. knobscope has "
                                "not been told to trust it, and an experiment file can name any program.</p>"
                                "<p>Run it only if you trust where the file came from.</p>")
                                 .arg(what.toHtmlEscaped(), plan.workingDirectory.toHtmlEscaped()),
        this);
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::RichText);

    m_commands->setObjectName(QStringLiteral("launchCommands"));
    m_commands->setAccessibleName(tr("Server commands, one per configuration"));
    m_commands->setReadOnly(true);
    m_commands->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_commands->setTabChangesFocus(true);
    m_commands->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_commands->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_commands->setPlainText(planText(plan));
    intro->setBuddy(m_commands);

    auto* cancelled = new QLabel(tr("Cancel runs nothing and keeps the experiment open: you can still edit it, or "
                                    "remove its server command and point its target at a server you started "
                                    "yourself, then run it."),
        this);
    cancelled->setWordWrap(true);

    auto* buttons = new QDialogButtonBox(this);
    m_trust = buttons->addButton(tr("&Trust and run"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    m_cancel->setDefault(true); // Enter alone cancels; Trust takes Enter only once focused (Tab)
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_commands, 1);
    layout->addWidget(cancelled);
    layout->addWidget(buttons);
    resize(760, 360);
    m_cancel->setFocus();
}

QString LaunchTrustDialog::commandText() const
{
    return m_commands->toPlainText();
}

} // namespace ks
