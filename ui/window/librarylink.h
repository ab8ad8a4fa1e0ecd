#pragma once

#include <QObject>
#include <QString>

#include <memory>

namespace ks {

class CatalogueJobs;
class RunFileLoader;
class RunsPage;
struct RunFile;

/// Ties the run library to the window: catalogues what the window runs and
/// opens (off the GUI thread), reloads the Runs page when a file is in, and
/// sends the page's picks to the Compare page through the loader.
class LibraryLink : public QObject {
    Q_OBJECT
public:
    LibraryLink(RunsPage* page, RunFileLoader* loader, QObject* parent = nullptr);

    /// Catalogues the complete run file `path` (a finished run, an opened file).
    /// `file`: the file as the window already read it, so the library does not read it again.
    void catalogue(const QString& path, std::shared_ptr<const RunFile> file = {});
    CatalogueJobs* jobs() const { return m_jobs; }

signals:
    void logged(const QString& line);
    void statusMessage(const QString& text);
    /// The page's picks are loading: show the Compare page.
    void compareStarted();

private:
    RunsPage* m_page;
    RunFileLoader* m_loader;
    CatalogueJobs* m_jobs;
};

} // namespace ks
