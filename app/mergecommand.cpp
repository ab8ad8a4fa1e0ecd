// knobscope merge part-*.jsonl --out RUNS.jsonl: the parts of a sharded run as one run file.
#include "commands.h"
#include "libraryoptions.h"
#include "loadflags.h"
#include "shard/shardmerge.h"
#include "store/jsonlwriter.h"

#include <QCommandLineParser>

#include <cstdio>

int mergeCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Merges the parts of a sharded run (knobscope run SPEC --shard I/N) into one run file: the requests of each "
        "run on one time line (by the parts' wall-clock start, so only as exact as the hosts' clocks agree), ids made "
        "unique, every summary recomputed from the records (percentiles are never averaged). See "
        "docs/distributed.md."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("PART.jsonl"), QStringLiteral("Every part of the run, one per shard."),
        QStringLiteral("PART..."));
    parser.addOption({ QStringLiteral("out"), QStringLiteral("Merged run file to write."), QStringLiteral("FILE") });
    addLibraryOptions(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope merge"))
        return *exitCode;
    if (!parser.isSet(QStringLiteral("out"))) {
        std::fputs("knobscope merge: --out FILE is required\n", stderr);
        return 2;
    }
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) {
        std::fputs("knobscope merge: give the part files (part-0.jsonl part-1.jsonl ...)\n", stderr);
        return 2;
    }
    std::vector<ks::ShardPart> parts(std::size_t(paths.size()));
    for (qsizetype i = 0; i < paths.size(); ++i) {
        QString error;
        if (!ks::readShardPart(paths[i], &parts[std::size_t(i)], &error)) {
            std::fprintf(stderr, "knobscope merge: %s\n", qPrintable(error));
            return 2;
        }
        printReadIssues("knobscope merge", parts[std::size_t(i)].file.issues, paths[i]);
    }
    const ks::ShardMerge merged = ks::mergeShards(parts);
    if (!merged.error.isEmpty()) {
        std::fprintf(stderr, "knobscope merge: %s; nothing written\n", qPrintable(merged.error));
        return 2;
    }
    ks::JsonlWriter writer;
    QString error;
    if (!writer.open(parser.value(QStringLiteral("out")), &error)) {
        std::fprintf(stderr, "knobscope merge: %s\n", qPrintable(error));
        return 2;
    }
    for (const nlohmann::json& line : merged.lines)
        writer.write(line);
    if (!writer.close()) {
        std::fprintf(stderr, "knobscope merge: %s\n", qPrintable(writer.error()));
        return 1;
    }
    for (const ks::MergedRunNote& run : merged.runs)
        std::printf("%s: %d requests from %d parts, start skew %.1f ms\n", qPrintable(run.run), run.requests, run.parts,
            double(run.startSkewUs) / 1000.0);
    std::fprintf(stderr, "knobscope merge: wrote %s\n", qPrintable(parser.value(QStringLiteral("out"))));
    catalogueRunFile(libraryChoiceOf(parser), "knobscope merge", parser.value(QStringLiteral("out")));
    return 0;
}
