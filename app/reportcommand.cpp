#include "commands.h"
#include "import/importedrun.h"
#include "import/resultfile.h"
#include "loadflags.h"
#include "metrics/runsummary.h"
#include "metrics/ttftsplit.h"
#include "server/serverversion.h"
#include "store/runfile.h"
#include "telemetry/hostenvironment.h"

#include <QCommandLineParser>

#include <cstdio>

int reportCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Prints one table per run of a run file, recomputed from its request records.\n"
                       "Corrupt lines are listed on stderr with their numbers and skipped."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("RUNS.jsonl"),
        QStringLiteral("A run file written by knobscope run, or a vLLM, GuideLLM or AIPerf result (read by content)."));
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print a JSON array, one object per run.") });
    addSloFlags(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope report"))
        return *exitCode;
    if (parser.positionalArguments().size() != 1) {
        std::fputs("knobscope report: give exactly one run file\n", stderr);
        return 2;
    }
    ks::RunFile file;
    QString error;
    if (!ks::readAnyRunFile(parser.positionalArguments().first(), &file, &error)) {
        std::fprintf(stderr, "knobscope report: %s\n", qPrintable(error));
        return 2;
    }
    printReadIssues("knobscope report", file.issues);

    ks::Slo slo;
    if (const QString sloError = readSloFlags(parser, ks::experimentSlo(file.experiment), &slo); !sloError.isEmpty()) {
        std::fprintf(stderr, "knobscope report: %s\n", qPrintable(sloError));
        return 2;
    }

    nlohmann::json all = nlohmann::json::array();
    for (const ks::RunData& run : file.runs) {
        if (ks::isImported(run)) { // another tool's result: docs/formats.md, "Importing other tools' results"
            all.push_back(ks::importedRunSummary(run, slo));
            continue;
        }
        nlohmann::json summary = ks::summarizeRun(run.run, run.config, run.arm, run.requests, slo);
        if (!run.summary) {
            summary["warnings"].push_back("the run did not finish: no summary line (killed or still running)");
        } else {
            const nlohmann::json stored = ks::runSummaryToJson(*run.summary);
            // What only the live run could measure is carried over from its summary line.
            for (const char* key :
                { "client", "connect_ms", "interrupted", "gentle", "server", "status", "peak_in_flight", "drift" }) {
                if (stored.contains(key))
                    summary[key] = stored[key];
            }
            // A split from the server's histograms exists only in the live summary; one from the records is redone.
            if (stored.contains("ttft_split_ms"))
                ks::offerTtftSplit(summary, stored["ttft_split_ms"]);
            for (const auto& w : stored.value("warnings", nlohmann::json::array())) {
                if (std::find(summary["warnings"].begin(), summary["warnings"].end(), w) == summary["warnings"].end())
                    summary["warnings"].push_back(w);
            }
        }
        all.push_back(summary);
    }
    if (parser.isSet(QStringLiteral("json"))) {
        std::printf("%s\n", all.dump(2).c_str());
        return 0;
    }
    if (const QString environment = ks::environmentText(file.environment()); !environment.isEmpty())
        std::printf("Measured on %s\n\n", qPrintable(environment));
    if (const QStringList servers = ks::serverVersionsOf(file); !servers.isEmpty())
        std::printf("Server: %s\n\n", qPrintable(servers.join(QStringLiteral("; "))));
    if (all.empty())
        std::puts("no runs in this file");
    for (const auto& summary : all)
        std::printf("%s\n\n", qPrintable(ks::formatSummaryTable(summary)));
    return 0;
}
