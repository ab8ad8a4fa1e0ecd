#pragma once

#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace ks {
struct RunFile;
}

/// Where a command's run files are catalogued (docs/library.md): --library FILE,
/// else $KNOBSCOPE_LIBRARY, else the user's data folder; --no-library: nowhere.
struct LibraryChoice {
    QString path; ///< empty with `off`
    bool off = false;
};

void addLibraryOptions(QCommandLineParser& parser, bool withNoLibrary = true);
LibraryChoice libraryChoiceOf(const QCommandLineParser& parser);

/// Catalogues the complete run file `path` in the chosen library. Never fails
/// the command: a library that is busy, corrupt or unwritable is reported on
/// stderr (as "TOOL: run library: ...") and the command goes on.
void catalogueRunFile(const LibraryChoice& choice, const char* tool, const QString& path);

/// `knobscope compare @12 @34`: reads the catalogued configuration-arms `ids`
/// ("@12" each) into one file, labelled "CONFIG @ID" (library/cataloguepicks.h);
/// `firstPath` is the first pick's run file. False with `error` naming an id
/// the library does not hold or a file that is gone.
bool readPickedRuns(
    const LibraryChoice& choice, const QStringList& ids, ks::RunFile* out, QString* firstPath, QString* error);
