// knobscope compare: configurations side by side per arm, with ratios and
// bootstrap intervals from the core (metrics/comparison).
#include "commands.h"
#include "compare/compareformat.h"
#include "compare/comparison.h"
#include "import/resultfile.h"
#include "loadflags.h"

#include <QCommandLineParser>

#include <cstdio>

int compareCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Per arm, the configurations of a run file side by side: latency percentiles, throughput, goodput, errors and\n"
        "peak server queue, with ratios against a baseline and 95 % bootstrap intervals (seeded)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUNS.jsonl"), QStringLiteral("A run file from knobscope run."));
    parser.addPositionalArgument(QStringLiteral("OTHER.jsonl"),
        QStringLiteral("Optional: a second run file; its configurations are labelled LABEL @FILE and compared "
                       "arm by arm with the first file's."));
    parser.addOption({ QStringLiteral("baseline"),
        QStringLiteral("Configuration label to compare against (default: the first)."), QStringLiteral("LABEL") });
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print JSON (one object per arm).") });
    parser.addOption(
        { QStringLiteral("format"), QStringLiteral("md or csv."), QStringLiteral("format"), QStringLiteral("md") });
    parser.addOption({ QStringLiteral("resamples"), QStringLiteral("Bootstrap resamples (at least 1000)."),
        QStringLiteral("N"), QStringLiteral("1000") });
    parser.addOption(
        { QStringLiteral("seed"), QStringLiteral("Bootstrap seed."), QStringLiteral("S"), QStringLiteral("1") });
    parser.addOption({ QStringLiteral("allow-different-workloads"),
        QStringLiteral("Compare an arm whose configurations ran different workloads (prompt source, lengths, prompt "
                       "file) instead of refusing it; such configurations are marked in every table.") });
    addSloFlags(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope compare"))
        return *exitCode;
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty() || files.size() > 2) {
        std::fputs("knobscope compare: give one run file, or two to compare experiments from different days\n", stderr);
        return 2;
    }
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("md") && format != QLatin1String("csv")) {
        std::fputs("knobscope compare: --format: expected md or csv\n", stderr);
        return 2;
    }
    ks::CompareOptions options;
    options.baseline = parser.value(QStringLiteral("baseline"));
    options.resamples = std::max(1000, parser.value(QStringLiteral("resamples")).toInt());
    options.seed = parser.value(QStringLiteral("seed")).toULongLong();
    options.allowDifferentWorkloads = parser.isSet(QStringLiteral("allow-different-workloads"));
    ks::RunFile file;
    QString error;
    if (!ks::readAnyRunFile(files.first(), &file, &error)) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
        return 2;
    }
    if (files.size() == 2) {
        ks::RunFile second;
        if (!ks::readAnyRunFile(files[1], &second, &error)) {
            std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
            return 2;
        }
        const ks::Slo a = ks::experimentSlo(file.experiment), b = ks::experimentSlo(second.experiment);
        if (a.ttftMs != b.ttftMs || a.tpotMs != b.tpotMs)
            std::fputs("knobscope compare: the two experiments set different SLOs; goodput uses the first file's "
                       "(or --slo-ttft-ms/--slo-tpot-ms)\n",
                stderr);
        const auto [first, other] = ks::fileLabels(files[0], files[1]);
        file = ks::mergeRunFiles(file, first, second, other);
    }
    ks::Slo slo;
    if (const QString sloError = readSloFlags(parser, ks::experimentSlo(file.experiment), &slo); !sloError.isEmpty()) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(sloError));
        return 2;
    }
    options.slo = slo;
    printReadIssues("knobscope compare", file.issues);
    const nlohmann::json arms = ks::compareRuns(file, options, &error);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
        return 2;
    }
    if (parser.isSet(QStringLiteral("json")))
        std::printf("%s\n", arms.dump(2).c_str());
    else if (format == QLatin1String("csv"))
        std::fputs(qPrintable(ks::compareCsv(arms)), stdout);
    else
        std::fputs(qPrintable(ks::compareMarkdown(arms)), stdout);
    return 0;
}
