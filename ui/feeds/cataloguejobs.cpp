#include "feeds/cataloguejobs.h"

#include "import/resultfile.h"
#include "library/runcatalogue.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

namespace ks {

CatalogueJobs::CatalogueJobs(QString libraryPath, QObject* parent)
    : QObject(parent)
    , m_libraryPath(std::move(libraryPath))
    , m_pool(new QThreadPool(this))
{
    m_pool->setMaxThreadCount(1); // one writer from this process; SQLite's lock orders it against others
}

CatalogueJobs::~CatalogueJobs()
{
    waitForDone();
}

void CatalogueJobs::waitForDone()
{
    m_pool->waitForDone();
}

void CatalogueJobs::catalogue(const QString& path, std::shared_ptr<const RunFile> file)
{
    const QString library = m_libraryPath;
    QPointer<CatalogueJobs> self(this);
    m_pool->start([self, library, path, file = std::move(file)] {
        QString error, message;
        if (auto catalogue = RunCatalogue::open(library, &error)) {
            message = catalogue->message();
            if (file) {
                catalogue->addFile(path, *file, &error);
            } else {
                RunFile read;
                if (readAnyRunFile(path, &read, &error))
                    catalogue->addFile(path, read, &error);
            }
        }
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, path, error, message] {
                if (self)
                    emit self->catalogued(path, error, message);
            },
            Qt::QueuedConnection);
    });
}

} // namespace ks
