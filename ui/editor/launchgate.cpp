#include "launchgate.h"

#include "experimentdocument.h"
#include "experimenteditor.h"
#include "launchtrustdialog.h"
#include "spec/experimentspec.h"

#include <QDir>

#include <variant>

namespace ks {

LaunchGate::LaunchGate(ExperimentDocument* document, ExperimentEditor* editor, Settings* settings, QWidget* window)
    : QObject(window)
    , m_document(document)
    , m_editor(editor)
    , m_window(window)
    , m_trust(settings)
{
}

LaunchPlan LaunchGate::currentPlan() const
{
    const auto parsed = parseExperimentSpec(m_document->toBytes());
    if (const auto* spec = std::get_if<ExperimentSpec>(&parsed))
        return launchPlan(*spec, QDir::currentPath()); // the launcher starts servers in this directory
    return {};
}

bool LaunchGate::isAsking() const
{
    return m_dialog && m_dialog->isVisible();
}

void LaunchGate::raise()
{
    if (m_dialog)
        m_dialog->raise();
}

void LaunchGate::request(const QString& specPath)
{
    m_editor->validateNow();
    const auto parsed = m_document->validate();
    if (!std::holds_alternative<ExperimentSpec>(parsed)) {
        emit invalid(m_editor->problemTexts().join(QLatin1Char('\n')));
        return;
    }
    const ExperimentSpec& spec = std::get<ExperimentSpec>(parsed);
    if (const LaunchPlan plan = currentPlan(); m_trust.mustAsk(plan)) {
        ask(spec, plan, specPath);
        return;
    }
    emit approved(spec);
}

void LaunchGate::ask(const ExperimentSpec& spec, const LaunchPlan& plan, const QString& specPath)
{
    auto* dialog = new LaunchTrustDialog(plan, specPath, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    m_dialog = dialog;
    emit logged(tr("Asking before starting the server command of %1 (not trusted yet):\n%2")
                    .arg(specPath.isEmpty() ? spec.name : specPath, dialog->commandText()));
    connect(dialog, &QDialog::accepted, this, [this, spec, plan] {
        m_trust.trust(plan);
        emit logged(tr("Trusted: these commands run without asking from now on"));
        emit approved(spec);
    });
    connect(dialog, &QDialog::rejected, this, &LaunchGate::declined);
    dialog->open();
}

} // namespace ks
