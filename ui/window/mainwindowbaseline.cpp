// The main window's side of the Live page's baseline: reading the file in
// the background and saying what became of it.
#include "mainwindow.h"

#include "feeds/baseline.h"
#include "pages/livepage.h"

#include <QLabel>
#include <QPlainTextEdit>

namespace ks {

void MainWindow::connectBaseline()
{
    connect(m_live, &LivePage::baselineRequested, this, &MainWindow::setBaselineFile);
    connect(m_baselineLoader, &BaselineLoader::loaded, this, [this](std::shared_ptr<const Baseline> baseline) {
        const QString path = baseline->path;
        const int arms = int(baseline->arms.size());
        m_live->setBaseline(std::move(baseline));
        m_live->addBaselineCandidate(path);
        m_status->setText(tr("Baseline: %1 (%n arm(s)), faded on the Live charts", nullptr, arms).arg(path));
        log(tr("Baseline %1: %n arm(s)", nullptr, arms).arg(path));
        emit baselineChanged(path, {});
    });
    connect(m_baselineLoader, &BaselineLoader::failed, this, [this](const QString& path, const QString& error) {
        const QString text = tr("Baseline %1 not used: %2").arg(path, error);
        m_status->setText(text);
        log(text);
        emit baselineChanged(path, error);
    });
}

void MainWindow::setBaselineFile(const QString& path)
{
    if (!path.isEmpty()) {
        m_baselineLoader->load(path);
        return;
    }
    m_baselineLoader->cancel(); // one still being read must not appear after "No baseline"
    m_live->setBaseline(nullptr);
    m_status->setText(tr("No baseline"));
    emit baselineChanged({}, {});
}

} // namespace ks
