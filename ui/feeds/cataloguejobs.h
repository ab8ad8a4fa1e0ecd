#pragma once

#include <QObject>
#include <QString>

#include <memory>

class QThreadPool;

namespace ks {

struct RunFile;

/// Catalogues the dashboard's run files in the run library (docs/library.md)
/// off the GUI thread: a finished run's file and every file opened. Each job
/// opens its own connection (Qt SQL's are per thread); a busy or unwritable
/// library is reported, never blocking or failing the run.
class CatalogueJobs : public QObject {
    Q_OBJECT
public:
    explicit CatalogueJobs(QString libraryPath, QObject* parent = nullptr);
    ~CatalogueJobs() override;

    QString libraryPath() const { return m_libraryPath; }
    /// Catalogues the complete run file `path`; catalogued() follows on the GUI thread.
    /// `file`: the file as already read (an opened file), so it is not read twice.
    void catalogue(const QString& path, std::shared_ptr<const RunFile> file = {});
    /// Waits for the jobs still running (the window is closing).
    void waitForDone();

signals:
    /// `error` empty: `path` is in the library now. `message`: a corrupt library was set aside.
    void catalogued(const QString& path, const QString& error, const QString& message);

private:
    QString m_libraryPath;
    QThreadPool* m_pool;
};

} // namespace ks
