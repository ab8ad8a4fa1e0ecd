// knobscope compare: configurations side by side per arm, with ratios and
// bootstrap intervals from the core (metrics/comparison).
#include "commands.h"
#include "compare/calibrationlookup.h"
#include "compare/compareformat.h"
#include "compare/comparegate.h"
#include "compare/comparison.h"
#include "compare/searchreport.h"
#include "import/resultfile.h"
#include "libraryoptions.h"
#include "loadflags.h"
#include "server/serverversion.h"
#include "telemetry/hostenvironment.h"

#include <QCommandLineParser>
#include <QFile>
#include <QSaveFile>

#include <algorithm>

#include <cstdio>

namespace {

// Judges the --fail-if conditions, prints each verdict, writes --junit; the exit code.
int runGate(const QCommandLineParser& parser, const std::vector<ks::GateCondition>& conditions,
    const ks::Comparison& comparison, const ks::RunFile& file, const QStringList& judgedConfigs, bool markdown)
{
    ks::GateOptions options;
    options.strict = parser.isSet(QStringLiteral("strict"));
    options.configs = judgedConfigs; // two files: only the first file's runs are judged
    std::optional<ks::DriftReport> drift;
    if (std::any_of(conditions.begin(), conditions.end(),
            [](const ks::GateCondition& c) { return c.metric == QLatin1String("drift"); })) {
        nlohmann::json set;
        const std::vector<ks::ProbePass> passes = ks::probePassesOf(file, 0, &set);
        if (!passes.empty())
            drift = ks::analyzeDrift(passes, set);
    }
    QStringList unmatched;
    const std::vector<ks::GateVerdict> verdicts
        = ks::evaluateGate(conditions, comparison, drift ? &*drift : nullptr, options, &unmatched);
    if (!unmatched.isEmpty()) { // judging the rest would pass a gate that checks nothing
        for (const QString& problem : std::as_const(unmatched))
            std::fprintf(stderr, "knobscope compare: --fail-if %s\n", qPrintable(problem));
        return 2;
    }
    int failures = 0;
    for (const ks::GateVerdict& v : verdicts) {
        failures += v.failed ? 1 : 0;
        std::fprintf(stderr, "gate %s  %s / %s: %s: %s\n", v.failed ? "FAIL" : "ok  ", qPrintable(v.arm),
            qPrintable(v.config), qPrintable(v.condition), qPrintable(v.reason));
    }
    if (markdown)
        std::printf("\n%s", qPrintable(ks::gateMarkdown(verdicts, options.strict)));
    if (const QString path = parser.value(QStringLiteral("junit")); !path.isEmpty()) {
        QSaveFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(ks::gateJunit(verdicts)) < 0 || !out.commit()) {
            std::fprintf(
                stderr, "knobscope compare: --junit %s: %s\n", qPrintable(path), qPrintable(out.errorString()));
            return 2;
        }
    }
    std::fprintf(
        stderr, "gate: %s (%d of %zu checks failed)\n", failures > 0 ? "failed" : "passed", failures, verdicts.size());
    return failures > 0 ? 3 : 0;
}

} // namespace

int compareCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Per arm, the configurations of a run file side by side: latency percentiles, throughput, goodput, errors and\n"
        "peak server queue, with ratios against a baseline and 95 % bootstrap intervals (seeded)."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUNS.jsonl"),
        QStringLiteral("A run file from knobscope run; or two or more catalogued configuration-arms, @ID @ID ... "
                       "(the ids `knobscope runs` lists), each labelled CONFIG @ID."));
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
    parser.addOption({ QStringLiteral("fail-if"),
        QStringLiteral(
            "A regression gate, repeatable: [ARM:]METRIC OP NUMBER[x], e.g. \"stress:ttft_ms.p99 > 1.10x\" "
            "(ratio against the baseline; with OTHER.jsonl and no --baseline, against OTHER's run of the "
            "same configuration), \"ttft_ms.p99 > 800\" (ms), \"errors > 0\", \"drift > 0\". Fails only when "
            "the whole 95 % interval is past the threshold. Exit 3 when a condition fails, 2 when one is "
            "malformed. Metrics: ")
            + ks::gateMetrics().join(QStringLiteral(", ")),
        QStringLiteral("EXPR") });
    parser.addOption(
        { QStringLiteral("strict"), QStringLiteral("--fail-if judges the point estimate, not the interval.") });
    parser.addOption({ QStringLiteral("junit"),
        QStringLiteral(
            "Write the --fail-if verdicts as JUnit XML (one test case per condition, arm and configuration)."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("calibration"),
        QStringLiteral("An A/A calibration (a run file from knobscope run SPEC --aa N) for arms that ran once on a "
                       "side: their intervals then include the spread of your own runs. Default: the file the "
                       "experiment spec's \"calibration\" names (relative to the run file), when it is there."),
        QStringLiteral("FILE") });
    addSloFlags(parser);
    addLibraryOptions(parser, false);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope compare"))
        return *exitCode;
    std::vector<ks::GateCondition> conditions;
    for (const QString& text : parser.values(QStringLiteral("fail-if"))) {
        auto parsed = ks::parseGateCondition(text);
        if (const QString* problem = std::get_if<QString>(&parsed)) {
            std::fprintf(stderr, "knobscope compare: --fail-if %s\n", qPrintable(*problem));
            return 2;
        }
        conditions.push_back(std::get<ks::GateCondition>(std::move(parsed)));
    }
    if (conditions.empty() && (parser.isSet(QStringLiteral("junit")) || parser.isSet(QStringLiteral("strict")))) {
        std::fputs("knobscope compare: --junit and --strict go with --fail-if\n", stderr);
        return 2;
    }
    const QStringList files = parser.positionalArguments();
    const qsizetype ids
        = std::count_if(files.begin(), files.end(), [](const QString& f) { return f.startsWith(QLatin1Char('@')); });
    const bool picked = ids > 0;
    if (picked && (ids != files.size() || ids < 2)) {
        std::fputs("knobscope compare: give two or more catalogued ids (@12 @34), or run files, not both\n", stderr);
        return 2;
    }
    if (!picked && (files.isEmpty() || files.size() > 2)) {
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
    QString firstPath = files.first();
    if (picked ? !readPickedRuns(libraryChoiceOf(parser), files, &file, &firstPath, &error)
               : !ks::readAnyRunFile(files.first(), &file, &error)) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
        return 2;
    }
    const ks::CalibrationLookup calibration
        = ks::lookUpCalibration(parser.value(QStringLiteral("calibration")), file, firstPath);
    if (!calibration.error.isEmpty()) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(calibration.error));
        return 2;
    }
    if (!calibration.note.isEmpty())
        std::fprintf(stderr, "knobscope compare: note: %s\n", qPrintable(calibration.note));
    options.calibration = calibration.calibration;
    ks::RunFile second;
    QStringList firstLabels; // the configurations of the first file, as labelled after a merge
    if (!picked && files.size() == 2) {
        if (!ks::readAnyRunFile(files[1], &second, &error)) {
            std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
            return 2;
        }
        const ks::Slo a = ks::experimentSlo(file.experiment), b = ks::experimentSlo(second.experiment);
        if (a.ttftMs != b.ttftMs || a.tpotMs != b.tpotMs)
            std::fputs("knobscope compare: the two experiments set different SLOs; goodput uses the first file's "
                       "(or --slo-ttft-ms/--slo-tpot-ms)\n",
                stderr);
        QStringList differences = ks::environmentDifferences(file.environment(), second.environment());
        if (const QStringList firstServers = ks::serverVersionsOf(file), secondServers = ks::serverVersionsOf(second);
            !firstServers.isEmpty() && !secondServers.isEmpty() && firstServers != secondServers)
            differences << QStringLiteral("server \"%1\" vs \"%2\"")
                               .arg(firstServers.join(QStringLiteral("; ")), secondServers.join(QStringLiteral("; ")));
        if (!differences.isEmpty())
            std::fprintf(stderr,
                "knobscope compare: warning: the two files were measured in different environments (%s); a difference "
                "between them may come from the machine, not the configuration\n",
                qPrintable(differences.join(QStringLiteral("; "))));
        const auto [first, other] = ks::fileLabels(files[0], files[1]);
        for (const ks::RunData& run : file.runs)
            if (const QString label = run.config + QStringLiteral(" @") + first; !firstLabels.contains(label))
                firstLabels << label;
        // A gate over two files compares each configuration with its own run in OTHER.jsonl.
        const bool relative
            = std::any_of(conditions.begin(), conditions.end(), [](const ks::GateCondition& c) { return c.relative; });
        if (relative && !parser.isSet(QStringLiteral("baseline"))) {
            if (firstLabels.size() != 1) { // each against its own would need one comparison per label
                std::fprintf(stderr,
                    "knobscope compare: --fail-if with a ratio: %s has %lld configurations; name the one to compare "
                    "against with --baseline \"LABEL @%s\"\n",
                    qPrintable(files[0]), static_cast<long long>(firstLabels.size()), qPrintable(other));
                return 2;
            }
            options.baseline = firstLabels.first().section(QStringLiteral(" @"), 0, 0) + QStringLiteral(" @") + other;
        }
        file = ks::mergeRunFiles(file, first, second, other);
    }
    ks::Slo slo;
    if (const QString sloError = readSloFlags(parser, ks::experimentSlo(file.experiment), &slo); !sloError.isEmpty()) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(sloError));
        return 2;
    }
    options.slo = slo;
    printReadIssues("knobscope compare", file.issues);
    ks::Comparison comparison = ks::compareRuns(file, options, &error);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "knobscope compare: %s\n", qPrintable(error));
        return 2;
    }
    for (ks::ComparedArm& arm : comparison) // the search's result rides on its arm (docs/formats.md, "Search")
        if (file.search.is_object() && arm.arm.toStdString() == file.search.value("arm", std::string()))
            arm.search = ks::searchJson(file.search);
    if (parser.isSet(QStringLiteral("json")))
        std::printf("%s\n", ks::comparisonToJson(comparison).dump(2).c_str());
    else if (format == QLatin1String("csv"))
        std::fputs(qPrintable(ks::compareCsv(comparison)), stdout);
    else
        std::fputs(
            qPrintable(ks::compareMarkdown(comparison)
                + (file.search.is_object() ? QStringLiteral("\n") + ks::searchMarkdown(file.search) : QString())),
            stdout);
    if (conditions.empty())
        return 0;
    return runGate(parser, conditions, comparison, file, firstLabels,
        format == QLatin1String("md") && !parser.isSet(QStringLiteral("json")));
}
