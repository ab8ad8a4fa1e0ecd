#pragma once

#include <QDateTime>
#include <QString>

#include <optional>
#include <vector>

namespace ks {

struct RunFile;

/// A headline figure of one configuration-arm with its 95 % interval (both ends
/// unset when compare gave none).
struct CatalogueFigure {
    std::optional<double> value;
    std::optional<double> low;
    std::optional<double> high;
};

/// One configuration's arm in a catalogued run file: what the Runs page lists
/// and filters, from compare's reading of the file (docs/library.md).
struct CatalogueArm {
    QString config;
    QString arm;
    QString model;
    QString knobs; ///< compact JSON object, as the run line has it
    QString armShape; ///< compact JSON of the spec's arm, "" when the file has none
    qint64 requests = 0;
    qint64 errors = 0;
    CatalogueFigure ttftP50;
    CatalogueFigure ttftP99;
    CatalogueFigure tpotP50;
    CatalogueFigure e2eP50;
    std::optional<double> reqPerS;
    std::optional<double> outTokPerS;
    QString intervalMethod; ///< compare's ci95.method: rounds, calibrated or within-run
};

/// One run file as the catalogue keeps it. The file stays the source of truth:
/// every field here is read again from it by a rescan.
struct CatalogueFile {
    QString path; ///< absolute
    qint64 size = 0;
    qint64 mtimeMs = 0;
    QString sha256; ///< of the whole file, hex
    QString specName;
    QString host;
    QString knobscopeVersion;
    QString serverVersions; ///< "; "-joined, as serverVersionText() writes each
    QString startedAt; ///< the experiment line's started_at (ISO 8601), "" if none
    QString note; ///< why some figures are missing (compare refused the file), "" if none
    std::vector<CatalogueArm> arms;
};

/// The catalogue's record of `path`, already read into `file`. Figures come from
/// compareRuns() with 200 resamples (workloads that differ are allowed: the
/// catalogue lists, the Compare page judges). False with `error` when the file
/// cannot be hashed; a file compare refuses still gives its rows, with a note.
bool catalogueRecordOf(const QString& path, const RunFile& file, CatalogueFile* out, QString* error);

/// The SHA-256 of a file, read in blocks; empty with `error` when it cannot be read.
QString fileSha256(const QString& path, QString* error);

} // namespace ks
