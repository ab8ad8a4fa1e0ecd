#include "library/runcatalogue.h"

#include "store/runfile.h"

#include <QAtomicInteger>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QVariant>

#include <map>
#include <set>

namespace ks {

namespace {

constexpr int kSchemaVersion = 1;

const char* const kSchema[] = {
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE IF NOT EXISTS files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER, "
    "mtime_ms INTEGER, sha256 TEXT, spec_name TEXT, host TEXT, knobscope_version TEXT, server_versions TEXT, "
    "started_at TEXT, note TEXT, tags TEXT NOT NULL DEFAULT '', missing INTEGER NOT NULL DEFAULT 0, "
    "catalogued_at TEXT)",
    "CREATE INDEX IF NOT EXISTS files_sha256 ON files (sha256)",
    "CREATE TABLE IF NOT EXISTS arms (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL REFERENCES files (id) "
    "ON DELETE CASCADE, config TEXT, arm TEXT, model TEXT, knobs TEXT, arm_shape TEXT, requests INTEGER, "
    "errors INTEGER, ttft_p50 REAL, ttft_p50_lo REAL, ttft_p50_hi REAL, ttft_p99 REAL, ttft_p99_lo REAL, "
    "ttft_p99_hi REAL, tpot_p50 REAL, tpot_p50_lo REAL, tpot_p50_hi REAL, e2e_p50 REAL, e2e_p50_lo REAL, "
    "e2e_p50_hi REAL, req_per_s REAL, out_tok_per_s REAL, interval_method TEXT)",
    "CREATE INDEX IF NOT EXISTS arms_file ON arms (file_id)",
};

QVariant orNull(const std::optional<double>& v)
{
    return v ? QVariant(*v) : QVariant(QMetaType(QMetaType::Double));
}

std::optional<double> optionalOf(const QVariant& v)
{
    return v.isNull() ? std::nullopt : std::optional<double>(v.toDouble());
}

bool exec(QSqlQuery& q, QString* error)
{
    if (q.exec())
        return true;
    if (error)
        *error = q.lastError().text();
    return false;
}

bool execText(const QSqlDatabase& db, const QString& sql, QString* error)
{
    QSqlQuery q(db);
    if (q.exec(sql))
        return true;
    if (error)
        *error = q.lastError().text();
    return false;
}

// SQLite's own words for a database another process holds: wait, never set it aside.
bool isBusy(const QString& error)
{
    return error.contains(QLatin1String("locked"), Qt::CaseInsensitive)
        || error.contains(QLatin1String("busy"), Qt::CaseInsensitive);
}

QString newConnectionName()
{
    static QAtomicInteger<quint64> next = 0;
    return QStringLiteral("knobscope-library-%1").arg(next.fetchAndAddRelaxed(1));
}

// Opens the database and checks it; empty on success, else SQLite's complaint.
QString openAndCheck(const QString& path, const QString& connection)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!db.open())
        return db.lastError().text();
    QString error;
    QSqlQuery check(db);
    if (!check.exec(QStringLiteral("PRAGMA quick_check")))
        return check.lastError().text();
    if (!check.next() || check.value(0).toString() != QLatin1String("ok"))
        return QStringLiteral("integrity check: %1").arg(check.value(0).toString());
    check.finish();
    if (!execText(db, QStringLiteral("PRAGMA journal_mode=WAL"), &error))
        return error;
    if (!execText(db, QStringLiteral("PRAGMA foreign_keys=ON"), &error))
        return error;
    return {};
}

void dropConnection(const QString& connection)
{
    {
        QSqlDatabase db = QSqlDatabase::database(connection, false);
        if (db.isValid())
            db.close();
    }
    QSqlDatabase::removeDatabase(connection);
}

QString setAside(const QString& path)
{
    const QString aside = path + QStringLiteral(".corrupt-")
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMddThhmmss"));
    QFile::rename(path, aside);
    QFile::remove(path + QStringLiteral("-wal"));
    QFile::remove(path + QStringLiteral("-shm"));
    return aside;
}

} // namespace

QString RunCatalogue::defaultPath()
{
    const QString chosen = qEnvironmentVariable("KNOBSCOPE_LIBRARY");
    if (!chosen.isEmpty())
        return chosen;
    // The dashboard's AppDataLocation (organisation and application both
    // "knobscope"), spelt out so the command line, which sets no organisation,
    // finds the same file.
    QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + QStringLiteral("/.local/share");
    return dir + QStringLiteral("/knobscope/knobscope/library.sqlite");
}

RunCatalogue::RunCatalogue(QString path, QString connection)
    : m_path(std::move(path))
    , m_connection(std::move(connection))
{
}

RunCatalogue::~RunCatalogue()
{
    dropConnection(m_connection);
}

std::unique_ptr<RunCatalogue> RunCatalogue::open(const QString& path, QString* error)
{
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        *error = QStringLiteral("Qt's SQLite driver (QSQLITE) is not installed (Debian/Ubuntu: libqt6sql6-sqlite)");
        return nullptr;
    }
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath())) {
        *error = QStringLiteral("cannot make the folder %1").arg(info.absolutePath());
        return nullptr;
    }
    std::unique_ptr<RunCatalogue> catalogue(new RunCatalogue(info.absoluteFilePath(), newConnectionName()));
    QString problem = openAndCheck(catalogue->m_path, catalogue->m_connection);
    if (problem.isEmpty() && !catalogue->prepareSchema(&problem) && problem.isEmpty())
        problem = QStringLiteral("no schema");
    if (problem.isEmpty())
        return catalogue;
    if (isBusy(problem)) {
        *error = QStringLiteral("the run library %1 is busy (another knobscope holds it): %2").arg(path, problem);
        return nullptr;
    }
    if (problem.startsWith(QLatin1String("newer:"))) {
        *error = QStringLiteral("the run library %1 was written by a newer knobscope (%2); left as it is")
                     .arg(path, problem.mid(6));
        return nullptr;
    }
    dropConnection(catalogue->m_connection);
    const QString aside = setAside(catalogue->m_path);
    const QString again = openAndCheck(catalogue->m_path, catalogue->m_connection);
    QString schemaError;
    if (!again.isEmpty() || !catalogue->prepareSchema(&schemaError)) {
        *error
            = QStringLiteral("the run library %1 cannot be made: %2").arg(path, again.isEmpty() ? schemaError : again);
        return nullptr;
    }
    catalogue->m_message = QStringLiteral("the run library %1 was unreadable (%2); set aside as %3 and started afresh: "
                                          "`knobscope runs rescan DIR` fills it again from the run files")
                               .arg(path, problem, QFileInfo(aside).fileName());
    return catalogue;
}

bool RunCatalogue::prepareSchema(QString* error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    for (const char* statement : kSchema) {
        if (!execText(db, QString::fromLatin1(statement), error))
            return false;
    }
    QSqlQuery version(db);
    version.prepare(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'"));
    if (!exec(version, error))
        return false;
    if (version.next()) {
        const int found = version.value(0).toInt();
        if (found > kSchemaVersion) {
            *error = QStringLiteral("newer:schema %1, this knobscope reads %2").arg(found).arg(kSchemaVersion);
            return false;
        }
        return true;
    }
    version.finish();
    QSqlQuery set(db);
    set.prepare(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)"));
    set.addBindValue(kSchemaVersion);
    return exec(set, error);
}

bool RunCatalogue::add(const CatalogueFile& record, QString* error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    // IMMEDIATE: take the write lock up front, so the busy timeout covers another
    // writer; a deferred transaction that reads first fails at once (SQLITE_BUSY)
    // when it must upgrade under WAL.
    QString why;
    if (!execText(db, QStringLiteral("BEGIN IMMEDIATE"), &why)) {
        *error = why;
        return false;
    }
    auto fail = [&](const QString& reason) {
        execText(db, QStringLiteral("ROLLBACK"), nullptr);
        *error = reason;
        return false;
    };
    // The row to reuse: this path, else a missing file with the same content (moved).
    auto firstId = [&](const QString& sql, const QString& value, qint64* id) {
        QSqlQuery q(db);
        q.prepare(sql);
        q.addBindValue(value);
        if (!exec(q, &why))
            return false;
        *id = q.next() ? q.value(0).toLongLong() : 0;
        return true;
    };
    qint64 fileId = 0;
    if (!firstId(QStringLiteral("SELECT id FROM files WHERE path = ?"), record.path, &fileId))
        return fail(why);
    if (fileId == 0
        && !firstId(QStringLiteral("SELECT id FROM files WHERE sha256 = ? AND missing = 1 ORDER BY id LIMIT 1"),
            record.sha256, &fileId))
        return fail(why);
    QSqlQuery write(db);
    if (fileId == 0) {
        write.prepare(QStringLiteral("INSERT INTO files (path, size, mtime_ms, sha256, spec_name, host, "
                                     "knobscope_version, server_versions, started_at, note, catalogued_at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    } else {
        write.prepare(QStringLiteral("UPDATE files SET path = ?, size = ?, mtime_ms = ?, sha256 = ?, spec_name = ?, "
                                     "host = ?, knobscope_version = ?, server_versions = ?, started_at = ?, note = ?, "
                                     "catalogued_at = ?, missing = 0 WHERE id = ?"));
    }
    for (const QVariant& v : { QVariant(record.path), QVariant(record.size), QVariant(record.mtimeMs),
             QVariant(record.sha256), QVariant(record.specName), QVariant(record.host),
             QVariant(record.knobscopeVersion), QVariant(record.serverVersions), QVariant(record.startedAt),
             QVariant(record.note), QVariant(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)) })
        write.addBindValue(v);
    if (fileId != 0)
        write.addBindValue(fileId);
    if (!exec(write, &why))
        return fail(why);
    if (fileId == 0)
        fileId = write.lastInsertId().toLongLong();
    // A re-catalogued file keeps each configuration-arm's id: `compare @ID` and the
    // Runs page's picks must not change meaning because the file was opened again.
    std::map<std::pair<QString, QString>, qint64> oldIds;
    QSqlQuery previous(db);
    previous.prepare(QStringLiteral("SELECT id, config, arm FROM arms WHERE file_id = ?"));
    previous.addBindValue(fileId);
    if (!exec(previous, &why))
        return fail(why);
    while (previous.next())
        oldIds.emplace(
            std::pair(previous.value(1).toString(), previous.value(2).toString()), previous.value(0).toLongLong());
    previous.finish();
    QSqlQuery clear(db);
    clear.prepare(QStringLiteral("DELETE FROM arms WHERE file_id = ?"));
    clear.addBindValue(fileId);
    if (!exec(clear, &why))
        return fail(why);
    QSqlQuery arm(db);
    arm.prepare(QStringLiteral("INSERT INTO arms (id, file_id, config, arm, model, knobs, arm_shape, requests, errors, "
                               "ttft_p50, ttft_p50_lo, ttft_p50_hi, ttft_p99, ttft_p99_lo, ttft_p99_hi, tpot_p50, "
                               "tpot_p50_lo, tpot_p50_hi, e2e_p50, e2e_p50_lo, e2e_p50_hi, req_per_s, out_tok_per_s, "
                               "interval_method) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                               "?, ?, ?, ?)"));
    for (const CatalogueArm& a : record.arms) {
        const auto known = oldIds.find({ a.config, a.arm });
        arm.addBindValue(known != oldIds.end() ? QVariant(known->second) : QVariant(QMetaType(QMetaType::LongLong)));
        arm.addBindValue(fileId);
        for (const QString& s : { a.config, a.arm, a.model, a.knobs, a.armShape })
            arm.addBindValue(s);
        arm.addBindValue(a.requests);
        arm.addBindValue(a.errors);
        for (const CatalogueFigure* f : { &a.ttftP50, &a.ttftP99, &a.tpotP50, &a.e2eP50 }) {
            arm.addBindValue(orNull(f->value));
            arm.addBindValue(orNull(f->low));
            arm.addBindValue(orNull(f->high));
        }
        arm.addBindValue(orNull(a.reqPerS));
        arm.addBindValue(orNull(a.outTokPerS));
        arm.addBindValue(a.intervalMethod);
        if (!exec(arm, &why))
            return fail(why);
    }
    if (!execText(db, QStringLiteral("COMMIT"), &why))
        return fail(why);
    return true;
}

bool RunCatalogue::addFile(const QString& path, const RunFile& file, QString* error)
{
    CatalogueFile record;
    return catalogueRecordOf(path, file, &record, error) && add(record, error);
}

bool RunCatalogue::markMissing(int* count, QString* error)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery all(db);
    all.prepare(QStringLiteral("SELECT id, path, missing FROM files"));
    if (!exec(all, error))
        return false;
    std::vector<std::pair<qint64, bool>> changes;
    while (all.next()) {
        const bool gone = !QFileInfo::exists(all.value(1).toString());
        if (gone != all.value(2).toBool())
            changes.emplace_back(all.value(0).toLongLong(), gone);
        *count += gone ? 1 : 0;
    }
    all.finish();
    for (const auto& [id, gone] : changes) {
        QSqlQuery mark(db);
        mark.prepare(QStringLiteral("UPDATE files SET missing = ? WHERE id = ?"));
        mark.addBindValue(gone ? 1 : 0);
        mark.addBindValue(id);
        if (!exec(mark, error))
            return false;
    }
    return true;
}

RescanResult RunCatalogue::rescan(const QString& dir)
{
    RescanResult result;
    QString error;
    int missingBefore = 0;
    if (!markMissing(&missingBefore, &error))
        result.problems << error;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QDirIterator it(dir, { QStringLiteral("*.jsonl") }, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo info(it.next());
        const QString path = info.absoluteFilePath();
        QSqlQuery known(db);
        known.prepare(QStringLiteral("SELECT size, mtime_ms FROM files WHERE path = ?"));
        known.addBindValue(path);
        if (exec(known, &error) && known.next() && known.value(0).toLongLong() == info.size()
            && known.value(1).toLongLong() == info.lastModified().toMSecsSinceEpoch()) {
            ++result.unchanged;
            continue;
        }
        known.finish();
        RunFile file;
        if (!readRunFile(path, &file, &error)) {
            result.problems << error;
            continue;
        }
        if (file.experiment.is_null() && file.runs.empty()) {
            result.problems << QStringLiteral("%1: not a knobscope run file (no experiment or run line)").arg(path);
            continue;
        }
        CatalogueFile record;
        if (!catalogueRecordOf(path, file, &record, &error)) {
            result.problems << error;
            continue;
        }
        QSqlQuery moved(db);
        moved.prepare(QStringLiteral("SELECT 1 FROM files WHERE sha256 = ? AND missing = 1 AND path != ?"));
        moved.addBindValue(record.sha256);
        moved.addBindValue(path);
        const bool wasMoved = exec(moved, &error) && moved.next();
        moved.finish();
        if (!add(record, &error)) {
            result.problems << QStringLiteral("%1: %2").arg(path, error);
            continue;
        }
        ++(wasMoved ? result.moved : result.added);
    }
    int missingAfter = 0;
    if (!markMissing(&missingAfter, &error))
        result.problems << error;
    result.missing = missingAfter;
    return result;
}

std::vector<CatalogueRow> RunCatalogue::rows(const CatalogueFilter& filter, QString* error) const
{
    QString sql = QStringLiteral(
        "SELECT a.id, f.id, f.path, f.size, f.mtime_ms, f.sha256, f.spec_name, f.host, f.knobscope_version, "
        "f.server_versions, f.started_at, f.note, f.tags, f.missing, a.config, a.arm, a.model, a.knobs, a.arm_shape, "
        "a.requests, a.errors, a.ttft_p50, a.ttft_p50_lo, a.ttft_p50_hi, a.ttft_p99, a.ttft_p99_lo, a.ttft_p99_hi, "
        "a.tpot_p50, a.tpot_p50_lo, a.tpot_p50_hi, a.e2e_p50, a.e2e_p50_lo, a.e2e_p50_hi, a.req_per_s, "
        "a.out_tok_per_s, a.interval_method FROM arms a JOIN files f ON f.id = a.file_id WHERE 1");
    QVariantList binds;
    sql += catalogueWhere(filter, &binds);
    sql += QStringLiteral(" ORDER BY f.started_at DESC, f.id DESC, a.id");
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.setForwardOnly(true);
    q.prepare(sql);
    for (const QVariant& b : binds)
        q.addBindValue(b);
    std::vector<CatalogueRow> out;
    if (!exec(q, error))
        return out;
    while (q.next()) {
        CatalogueRow r;
        int c = 0;
        r.id = q.value(c++).toLongLong();
        r.fileId = q.value(c++).toLongLong();
        r.file.path = q.value(c++).toString();
        r.file.size = q.value(c++).toLongLong();
        r.file.mtimeMs = q.value(c++).toLongLong();
        r.file.sha256 = q.value(c++).toString();
        r.file.specName = q.value(c++).toString();
        r.file.host = q.value(c++).toString();
        r.file.knobscopeVersion = q.value(c++).toString();
        r.file.serverVersions = q.value(c++).toString();
        r.file.startedAt = q.value(c++).toString();
        r.file.note = q.value(c++).toString();
        r.tags = q.value(c++).toString();
        r.missing = q.value(c++).toBool();
        for (QString* s : { &r.arm.config, &r.arm.arm, &r.arm.model, &r.arm.knobs, &r.arm.armShape })
            *s = q.value(c++).toString();
        r.arm.requests = q.value(c++).toLongLong();
        r.arm.errors = q.value(c++).toLongLong();
        for (CatalogueFigure* f : { &r.arm.ttftP50, &r.arm.ttftP99, &r.arm.tpotP50, &r.arm.e2eP50 }) {
            f->value = optionalOf(q.value(c++));
            f->low = optionalOf(q.value(c++));
            f->high = optionalOf(q.value(c++));
        }
        r.arm.reqPerS = optionalOf(q.value(c++));
        r.arm.outTokPerS = optionalOf(q.value(c++));
        r.arm.intervalMethod = q.value(c++).toString();
        out.push_back(std::move(r));
    }
    return out;
}

bool RunCatalogue::setTags(qint64 fileId, const QString& tags, QString* error)
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(QStringLiteral("UPDATE files SET tags = ? WHERE id = ?"));
    q.addBindValue(tags);
    q.addBindValue(fileId);
    return exec(q, error);
}

bool RunCatalogue::forget(qint64 fileId, QString* error)
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(QStringLiteral("DELETE FROM files WHERE id = ?"));
    q.addBindValue(fileId);
    return exec(q, error);
}

int RunCatalogue::fileCount() const
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    return q.exec(QStringLiteral("SELECT COUNT(*) FROM files")) && q.next() ? q.value(0).toInt() : 0;
}

} // namespace ks
