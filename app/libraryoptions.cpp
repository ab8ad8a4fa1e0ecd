#include "libraryoptions.h"

#include "library/runcatalogue.h"
#include "store/runfile.h"

#include <QCommandLineParser>

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
