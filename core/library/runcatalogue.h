#pragma once

#include "library/cataloguefilter.h"
#include "library/cataloguerecord.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace ks {

/// One configuration-arm of a catalogued file, as listed.
struct CatalogueRow {
    qint64 id = 0; ///< the `@ID` of `knobscope compare` and the Runs page
    qint64 fileId = 0;
    CatalogueFile file; ///< its `arms` left empty
    bool missing = false; ///< the file is not at its path any more
    QString tags;
    CatalogueArm arm;
};

/// What a rescan did.
struct RescanResult {
    int added = 0; ///< new to the catalogue, or changed since it was read
    int unchanged = 0; ///< same size and time as catalogued: not read again
    int moved = 0; ///< found again by hash at a new path
    int missing = 0; ///< catalogued but no longer at their path
    QStringList problems; ///< files that could not be read, one line each
};

/// The run library: every run file knobscope wrote, opened, imported or merged,
/// in one SQLite database (Qt SQL's QSQLITE driver; docs/library.md). WAL and a
/// busy timeout let two knobscope processes write at once. A database that
/// cannot be opened, is not SQLite or fails its integrity check is set aside
/// (renamed *.corrupt-TIME) and started afresh; message() says so. The files
/// stay the source of truth: rescan() rebuilds every row from them.
class RunCatalogue {
public:
    /// The default database: $KNOBSCOPE_LIBRARY, else library.sqlite beside the
    /// dashboard's run files (on Linux ~/.local/share/knobscope/knobscope/).
    static QString defaultPath();

    /// Opens (creating) the database at `path`; null with `error` only when no
    /// database can be made there at all (e.g. an unwritable folder).
    static std::unique_ptr<RunCatalogue> open(const QString& path, QString* error);
    ~RunCatalogue();
    RunCatalogue(const RunCatalogue&) = delete;
    RunCatalogue& operator=(const RunCatalogue&) = delete;

    QString path() const { return m_path; }
    /// What happened on opening, for the user: empty, or that a corrupt database was set aside.
    QString message() const { return m_message; }

    /// Records `record`, replacing what the catalogue had for its path (tags
    /// kept). A missing entry with the same hash is taken over: the file moved.
    bool add(const CatalogueFile& record, QString* error);
    /// Reads `path` and records it; what the run, import, merge and open paths call.
    bool addFile(const QString& path, const RunFile& file, QString* error);
    /// Walks `dir` for *.jsonl run files, records the new and changed ones,
    /// marks catalogued files that are gone as missing.
    RescanResult rescan(const QString& dir);

    std::vector<CatalogueRow> rows(const CatalogueFilter& filter, QString* error) const;
    bool setTags(qint64 fileId, const QString& tags, QString* error);
    /// Forgets a file (its rows); the file itself is not touched.
    bool forget(qint64 fileId, QString* error);
    int fileCount() const;

private:
    RunCatalogue(QString path, QString connection);
    bool prepareSchema(QString* error);
    bool markMissing(int* count, QString* error);

    QString m_path;
    QString m_connection;
    QString m_message;
};

} // namespace ks
