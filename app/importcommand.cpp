// knobscope import: other tools' results (vLLM, GuideLLM, AIPerf) as a knobscope
// run file; and knobscope export --vllm-json: knobscope runs as vLLM results.
#include "commands.h"
#include "import/importedrun.h"
#include "import/resultfile.h"
#include "import/vllmexport.h"
#include "libraryoptions.h"
#include "loadflags.h"
#include "store/jsonlwriter.h"
#include "store/recordjson.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>

namespace {

bool writeRuns(const QString& path, const QStringList& sources, const std::vector<ks::RunData>& runs, QString* error)
{
    ks::JsonlWriter writer;
    if (!writer.open(path, error))
        return false;
    writer.write(ks::importExperimentLine(sources));
    for (const ks::RunData& run : runs) {
        nlohmann::json info = run.info;
        info["type"] = "run";
        writer.write(info);
        for (const ks::RequestRecord& r : run.requests)
            writer.write(ks::toJson(r));
        nlohmann::json summary = run.summary ? ks::runSummaryToJson(*run.summary) : nlohmann::json::object();
        summary["type"] = "summary";
        writer.write(summary);
    }
    if (!writer.close()) {
        *error = writer.error();
        return false;
    }
    return true;
}

} // namespace

int importCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Converts other tools' benchmark results into one knobscope run file, read by content:\n"
        "  vLLM `vllm bench serve --save-result` JSON (with --save-detailed: per-request records; one object per\n"
        "  line with --append-result), GuideLLM's benchmarks report (every benchmark one run), AIPerf's\n"
        "  profile_export_aiperf.json (with profile_export.jsonl beside it: per-request records).\n"
        "Runs without per-request data are summary-only: the tool's own aggregates, without intervals.\n"
        "Metrics are mapped by definition, not by name: docs/metrics.md. report, compare and open read these\n"
        "files directly too."));
    parser.addHelpOption();
    parser.addPositionalArgument(
        QStringLiteral("FILE"), QStringLiteral("Result files to import."), QStringLiteral("FILE..."));
    parser.addOption({ QStringLiteral("out"), QStringLiteral("The run file to write."), QStringLiteral("RUNS.jsonl") });
    addLibraryOptions(parser);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope import"))
        return *exitCode;
    const QStringList files = parser.positionalArguments();
    const QString out = parser.value(QStringLiteral("out"));
    if (files.isEmpty() || out.isEmpty()) {
        std::fputs("knobscope import: give one or more result files and --out RUNS.jsonl\n", stderr);
        return 2;
    }
    std::vector<ks::RunData> runs;
    for (const QString& path : files) {
        QString error;
        if (ks::detectResultFormat(path, &error) == ks::ResultFormat::Knobscope) {
            std::fprintf(stderr, "knobscope import: %s is already a knobscope run file\n", qPrintable(path));
            return 2;
        }
        ks::RunFile file;
        if (!ks::readAnyRunFile(path, &file, &error)) {
            std::fprintf(stderr, "knobscope import: %s\n", qPrintable(error));
            return 2;
        }
        printReadIssues("knobscope import", file.issues, path);
        for (ks::RunData& run : file.runs) {
            // Labels stay unique across files: the second "vllm/rate=4" becomes "vllm/rate=4#2".
            const QString base = run.run;
            for (int n = 2;
                 std::any_of(runs.begin(), runs.end(), [&](const ks::RunData& r) { return r.run == run.run; }); ++n)
                run.run = base + QStringLiteral("#%1").arg(n);
            run.info["run"] = run.run.toStdString();
            if (!run.summary)
                run.summary = ks::RunSummary();
            run.summary->run = run.run;
            run.summary->rest.erase("run"); // one of another type, now replaced
            run.requests.setRun(run.run);
            std::fprintf(stderr, "knobscope import: %s: %s, %zu request records%s\n", qPrintable(path),
                qPrintable(run.run), run.requests.size(), ks::isSummaryOnly(run) ? " (summary only)" : "");
            runs.push_back(std::move(run));
        }
    }
    QString error;
    if (!writeRuns(out, files, runs, &error)) {
        std::fprintf(stderr, "knobscope import: %s\n", qPrintable(error));
        return 1;
    }
    std::fprintf(stderr, "knobscope import: wrote %zu runs to %s\n", runs.size(), qPrintable(out));
    catalogueRunFile(libraryChoiceOf(parser), "knobscope import", out);
    return 0;
}

int exportVllmCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes one vLLM-format result JSON per run (the keys and units of `vllm bench serve --save-result\n"
        "--save-detailed`, percentiles 50, 90, 95 and 99), so scripts that read vLLM's results read knobscope's."));
    parser.addHelpOption();
    parser.addPositionalArgument(
        QStringLiteral("RUNS.jsonl"), QStringLiteral("A run file (or another tool's result)."));
    parser.addOption(
        { QStringLiteral("vllm-json"), QStringLiteral("Folder to write the files into."), QStringLiteral("DIR") });
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope export"))
        return *exitCode;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) {
        std::fputs("knobscope export: give exactly one run file with --vllm-json DIR\n", stderr);
        return 2;
    }
    ks::RunFile file;
    QString error;
    if (!ks::readAnyRunFile(positional.first(), &file, &error)) {
        std::fprintf(stderr, "knobscope export: %s\n", qPrintable(error));
        return 2;
    }
    printReadIssues("knobscope export", file.issues);
    const QDir dir(parser.value(QStringLiteral("vllm-json")));
    if (!QDir().mkpath(dir.path())) {
        std::fprintf(stderr, "knobscope export: cannot create %s\n", qPrintable(dir.path()));
        return 1;
    }
    int written = 0;
    for (const ks::RunData& run : file.runs) {
        if (run.info.is_object() && run.info.contains("probes"))
            continue; // probe passes measure output stability, not serving load
        const QString path = dir.filePath(ks::vllmResultFileName(run));
        QFile out(path);
        const std::string text = ks::toVllmResult(run, file.experiment).dump();
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)
            || out.write(text.data(), qint64(text.size())) != qint64(text.size()) || !out.flush()) {
            std::fprintf(
                stderr, "knobscope export: cannot write %s: %s\n", qPrintable(path), qPrintable(out.errorString()));
            return 1;
        }
        ++written;
        std::printf("%s\n", qPrintable(path));
    }
    std::fprintf(stderr, "knobscope export: wrote %d vLLM result files to %s\n", written, qPrintable(dir.path()));
    return 0;
}
