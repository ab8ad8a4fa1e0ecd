#include "libraryoptions.h"

#include "library/cataloguepicks.h"
#include "library/runcatalogue.h"
#include "store/runfile.h"

#include <QCommandLineParser>

#include <algorithm>
#include <cstdio>

void addLibraryOptions(QCommandLineParser& parser, bool withNoLibrary)
{
    parser.addOption({ QStringLiteral("library"),
        QStringLiteral("The run library (SQLite) to use; default $KNOBSCOPE_LIBRARY or the user's data folder."),
        QStringLiteral("FILE") });
    if (withNoLibrary)
        parser.addOption({ QStringLiteral("no-library"), QStringLiteral("Keep this run out of the run library.") });
}

LibraryChoice libraryChoiceOf(const QCommandLineParser& parser)
{
    LibraryChoice choice;
    // optionNames(): the options given, so a parser without --no-library is never asked about it.
    choice.off = parser.optionNames().contains(QStringLiteral("no-library"));
    if (!choice.off)
        choice.path = parser.isSet(QStringLiteral("library")) ? parser.value(QStringLiteral("library"))
                                                              : ks::RunCatalogue::defaultPath();
    return choice;
}

void catalogueRunFile(const LibraryChoice& choice, const char* tool, const QString& path)
{
    if (choice.off)
        return;
    QString error;
    auto catalogue = ks::RunCatalogue::open(choice.path, &error);
    if (!catalogue) {
        std::fprintf(stderr, "%s: run library: %s; %s not catalogued\n", tool, qPrintable(error), qPrintable(path));
        return;
    }
    if (!catalogue->message().isEmpty())
        std::fprintf(stderr, "%s: run library: %s\n", tool, qPrintable(catalogue->message()));
    ks::RunFile file;
    if (!ks::readRunFile(path, &file, &error) || !catalogue->addFile(path, file, &error))
        std::fprintf(stderr, "%s: run library: %s not catalogued: %s\n", tool, qPrintable(path), qPrintable(error));
}

bool readPickedRuns(
    const LibraryChoice& choice, const QStringList& ids, ks::RunFile* out, QString* firstPath, QString* error)
{
    ks::CatalogueFilter filter;
    for (const QString& id : ids) {
        bool ok = false;
        const qint64 value = id.mid(1).toLongLong(&ok);
        if (!id.startsWith(QLatin1Char('@')) || !ok || value <= 0) {
            *error = QStringLiteral("'%1' is not a catalogue id such as @12 (`knobscope runs` lists them)").arg(id);
            return false;
        }
        if (filter.ids.contains(value)) {
            *error = QStringLiteral("@%1 is given twice; give each catalogued id once").arg(value);
            return false;
        }
        filter.ids << value;
    }
    if (choice.off) {
        *error = QStringLiteral("@ID needs the run library; --no-library turns it off");
        return false;
    }
    auto catalogue = ks::RunCatalogue::open(choice.path, error);
    if (!catalogue)
        return false;
    const std::vector<ks::CatalogueRow> rows = catalogue->rows(filter, error);
    if (!error->isEmpty())
        return false;
    std::vector<ks::CataloguePick> picks;
    for (const qint64 id : std::as_const(filter.ids)) {
        const auto row = std::find_if(rows.begin(), rows.end(), [id](const ks::CatalogueRow& r) { return r.id == id; });
        if (row == rows.end()) {
            *error = QStringLiteral("@%1 is not in the run library %2 (`knobscope runs` lists what is)")
                         .arg(id)
                         .arg(catalogue->path());
            return false;
        }
        if (row->missing) {
            *error = QStringLiteral("@%1: its file %2 is missing (moved? `knobscope runs rescan DIR` finds it again)")
                         .arg(id)
                         .arg(row->file.path);
            return false;
        }
        picks.push_back(ks::pickOf(*row));
    }
    *firstPath = picks.front().path;
    return ks::pickedRunFile(picks, out, error);
}
