#include "commands.h"
#include "drift/driftanalysis.h"
#include "loadflags.h"
#include "store/runfile.h"

#include <QCommandLineParser>

#include <cstdio>

namespace {

bool readFile(const QString& path, ks::RunFile* file)
{
    QString error;
    if (!ks::readRunFile(path, file, &error)) {
        std::fprintf(stderr, "knobscope drift: %s\n", qPrintable(error));
        return false;
    }
    printReadIssues("knobscope drift", file->issues, path);
    return true;
}

QString idList(const QStringList& ids)
{
    return ids.isEmpty() ? QStringLiteral("-") : ids.join(QStringLiteral(", "));
}

void printReport(const ks::DriftReport& report, const QStringList& files)
{
    std::printf("probe set %s version %s (sha256 %s), %lld probes\n", report.set.value("set", std::string("?")).c_str(),
        report.set.value("set_version", std::string("?")).c_str(),
        report.set.value("sha256", std::string("?")).substr(0, 12).c_str(),
        static_cast<long long>(report.probes.size()));
    std::puts("reference: the first pass of the first configuration serving each model\n");
    std::printf("%-20s %-16s %6s %7s %8s %6s %10s %14s %13s %10s\n", "config", "model", "probes", "repeats", "restarts",
        "errors", "within run", "across restart", "across config", "mismatches");
    for (const ks::ConfigDrift& c : report.configs) {
        const QString label = (files.size() > 1 ? QStringLiteral("[%1] ").arg(c.source + 1) : QString()) + c.config;
        std::printf("%-20s %-16s %6d %7d %8d %6d %10lld %14s %13s %10lld\n", qPrintable(label), qPrintable(c.model),
            c.probes, c.repeats, c.restarts, c.errors, static_cast<long long>(c.withinRun.size()),
            c.restarts > 0 ? qPrintable(QString::number(c.acrossRestart.size())) : "-",
            c.isReference ? "ref" : qPrintable(QString::number(c.acrossConfig.size())),
            static_cast<long long>(c.mismatches.size()));
    }
    for (const ks::ConfigDrift& c : report.configs) {
        if (c.mismatches.isEmpty())
            continue;
        std::printf("\n%s (%s): %lld of %d probes changed: %s\n", qPrintable(c.config), qPrintable(c.model),
            static_cast<long long>(c.mismatches.size()), c.probes, qPrintable(idList(c.mismatches)));
        std::printf("  within run: %s\n  across restart: %s\n", qPrintable(idList(c.withinRun)),
            qPrintable(idList(c.acrossRestart)));
        if (!c.isReference)
            std::printf("  across config: %s\n", qPrintable(idList(c.acrossConfig)));
    }
    if (!report.diffs.empty())
        std::puts("\nfirst divergence of each changed probe (⟦ marks where the texts part):");
    QStringList shown;
    for (const ks::DriftDiff& d : report.diffs) {
        const auto& column = report.columns[std::size_t(d.column)];
        const QString key = QString::number(column.source) + column.config + d.probe;
        if (shown.contains(key))
            continue; // the first changed pass of a probe says where it parts; later passes usually repeat it
        shown << key;
        if (d.divergence.byte < 0) {
            std::printf("  %-10s %-18s %s: no text recorded\n", qPrintable(d.probe), qPrintable(column.label()),
                qPrintable(d.channel));
            continue;
        }
        std::printf("  %-10s %-18s %s at char %lld, word %lld\n      reference: %s\n      changed:   %s\n",
            qPrintable(d.probe), qPrintable(column.label()), qPrintable(d.channel),
            static_cast<long long>(d.divergence.character), static_cast<long long>(d.divergence.word),
            qPrintable(d.divergence.referenceExcerpt.simplified()), qPrintable(d.divergence.otherExcerpt.simplified()));
    }
}

} // namespace

int driftCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compares the probe outputs of a run file: every pass against the first pass of the first configuration\n"
        "serving the same model, split into within-run, across-restart and across-configuration changes.\n"
        "With two files, the second file's passes are compared against the first file's references (for example\n"
        "last week's run against today's); both must have used the same probe set and version."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUNS.jsonl"), QStringLiteral("A run file with probe passes."));
    parser.addPositionalArgument(
        QStringLiteral("OTHER.jsonl"), QStringLiteral("Optional: a second run file to compare against the first."));
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print the report as JSON (docs/formats.md).") });
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope drift"))
        return *exitCode;
    const QStringList files = parser.positionalArguments();
    if (files.isEmpty() || files.size() > 2) {
        std::fputs("knobscope drift: give one or two run files\n", stderr);
        return 2;
    }
    std::vector<ks::ProbePass> passes;
    nlohmann::json set;
    for (int i = 0; i < files.size(); ++i) {
        ks::RunFile file;
        if (!readFile(files[i], &file))
            return 2;
        nlohmann::json identity;
        std::vector<ks::ProbePass> mine = ks::probePassesOf(file, i, &identity);
        if (mine.empty()) {
            std::fprintf(stderr, "knobscope drift: %s has no probe passes (add \"probes\" to the experiment spec)\n",
                qPrintable(files[i]));
            return 2;
        }
        QString problem;
        if (i > 0 && !ks::sameProbeSet(set, identity, &problem)) {
            std::fprintf(stderr, "knobscope drift: %s\n", qPrintable(problem));
            return 2;
        }
        set = identity;
        std::move(mine.begin(), mine.end(), std::back_inserter(passes));
    }
    const ks::DriftReport report = ks::analyzeDrift(passes, set);
    if (parser.isSet(QStringLiteral("json")))
        std::printf("%s\n", report.toJson().dump(2).c_str());
    else
        printReport(report, files);
    return 0;
}
