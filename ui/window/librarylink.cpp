#include "librarylink.h"

#include "feeds/cataloguejobs.h"
#include "feeds/runfileloader.h"
#include "pages/runspage.h"

namespace ks {

LibraryLink::LibraryLink(RunsPage* page, RunFileLoader* loader, QObject* parent)
    : QObject(parent)
    , m_page(page)
    , m_loader(loader)
    , m_jobs(new CatalogueJobs(page->libraryPath(), this))
{
    connect(m_page, &RunsPage::status, this, [this](const QString& text) {
        emit statusMessage(text);
        emit logged(text);
    });
    connect(m_page, &RunsPage::compareRequested, this, [this](const std::vector<CataloguePick>& picks) {
        QStringList ids;
        for (const CataloguePick& p : picks)
            ids << QStringLiteral("@%1").arg(p.id);
        emit logged(tr("Comparing %1 from the run library").arg(ids.join(QLatin1Char(' '))));
        m_loader->loadPicks(picks);
        emit compareStarted();
    });
    connect(m_jobs, &CatalogueJobs::catalogued, this,
        [this](const QString& path, const QString& error, const QString& message) {
            if (!message.isEmpty())
                emit logged(tr("Run library: %1").arg(message));
            if (!error.isEmpty()) {
                emit logged(tr("Run library: %1 not catalogued: %2").arg(path, error));
                return;
            }
            m_page->reload();
        });
}

void LibraryLink::catalogue(const QString& path, std::shared_ptr<const RunFile> file)
{
    m_jobs->catalogue(path, std::move(file));
}

} // namespace ks
