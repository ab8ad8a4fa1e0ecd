#include "specfiles.h"

#include "datalocations.h"
#include "editor/experimentdocument.h"
#include "editor/launchgate.h"
#include "settings.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QWidget>

namespace ks {

namespace {

/// A bundled experiment or an installed template: saved under a new name, never in place.
bool isOwn(const QString& path)
{
    const QString templates = experimentTemplateDirectory();
    return path.startsWith(QLatin1Char(':')) || (!templates.isEmpty() && path.startsWith(templates + QLatin1Char('/')));
}

} // namespace

SpecFiles::SpecFiles(ExperimentDocument* document, LaunchGate* gate, Settings* settings, QWidget* window)
    : QObject(window)
    , m_document(document)
    , m_gate(gate)
    , m_settings(settings)
    , m_window(window)
{
}

bool SpecFiles::open(const QString& path, LaunchTrust::Origin origin)
{
    QFile file(path);
    QString error;
    if (!file.open(QIODevice::ReadOnly)) {
        error = file.errorString();
    } else if (m_document->load(file.readAll(), &error)) {
        m_path = path;
        const QString templates = QFileInfo(experimentTemplateDirectory()).canonicalFilePath();
        if (path.startsWith(QLatin1Char(':'))
            || (!templates.isEmpty() && QFileInfo(path).canonicalFilePath().startsWith(templates + QLatin1Char('/'))))
            origin = LaunchTrust::Origin::Own;
        m_gate->trust().loaded(origin, m_gate->currentPlan());
        if (!path.startsWith(QLatin1Char(':')))
            remember(path);
        emit pathChanged();
        emit logged(tr("Loaded experiment %1").arg(path));
        return true;
    }
    QMessageBox::warning(m_window, tr("Cannot open experiment"), tr("%1:\n%2").arg(path, error));
    return false;
}

void SpecFiles::newExperiment()
{
    QString ignored;
    m_document->load(QByteArray::fromStdString(ExperimentDocument::newExperiment().dump()), &ignored);
    m_gate->trust().loaded(LaunchTrust::Origin::Own, {});
    m_path.clear();
    emit pathChanged();
}

bool SpecFiles::showFromRunFile(const nlohmann::json& spec)
{
    QString ignored;
    if (spec.empty() || !m_document->load(QByteArray::fromStdString(spec.dump()), &ignored))
        return false;
    m_gate->trust().loaded(LaunchTrust::Origin::File, m_gate->currentPlan()); // a run file's command is its author's
    m_path.clear();
    return true;
}

void SpecFiles::save()
{
    if (m_path.isEmpty() || isOwn(m_path))
        saveAsDialog();
    else
        saveTo(m_path);
}

bool SpecFiles::saveTo(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(m_document->toBytes()) < 0) {
        QMessageBox::warning(m_window, tr("Cannot save experiment"), tr("%1:\n%2").arg(path, file.errorString()));
        return false;
    }
    m_path = path;
    m_gate->trust().saved(m_gate->currentPlan()); // the file as written is the user's, if what was in the editor was
    remember(path);
    emit pathChanged();
    emit saved(path);
    return true;
}

void SpecFiles::saveAsDialog()
{
    const QString name = QFileInfo(m_path).fileName();
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Save experiment"),
        name.isEmpty() ? QStringLiteral("experiment.json") : name, tr("Experiment specs (*.json)"));
    if (!path.isEmpty())
        saveTo(path);
}

void SpecFiles::openDialog()
{
    const QString start = m_path.isEmpty() || m_path.startsWith(QLatin1Char(':')) ? experimentTemplateDirectory()
                                                                                  : QFileInfo(m_path).absolutePath();
    const QString path
        = QFileDialog::getOpenFileName(m_window, tr("Open experiment"), start, tr("Experiment specs (*.json)"));
    if (!path.isEmpty())
        open(path, LaunchTrust::Origin::File);
}

void SpecFiles::remember(const QString& path)
{
    m_settings->setLastSpecPath(path);
    m_settings->addRecentFile(path);
    emit recentChanged();
}

} // namespace ks
