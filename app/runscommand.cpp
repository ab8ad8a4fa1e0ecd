// knobscope runs: the run library (docs/library.md). `runs` lists, `runs rescan DIR` fills it from run files.
#include "commands.h"
#include "libraryoptions.h"
#include "loadflags.h"

#include "library/runcatalogue.h"

#include <QCommandLineParser>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <cstdio>

namespace {

using json = nlohmann::json;

json figureJson(const ks::CatalogueFigure& f)
{
    json out = json::object();
    out["value"] = f.value ? json(*f.value) : json();
    out["ci95"] = f.low && f.high ? json::array({ *f.low, *f.high }) : json();
    return out;
}

json rowJson(const ks::CatalogueRow& r)
{
    json knobs = json::parse(r.arm.knobs.toStdString(), nullptr, false);
    if (knobs.is_discarded())
        knobs = json::object();
    return { { "id", r.id }, { "file_id", r.fileId }, { "path", r.file.path.toStdString() }, { "missing", r.missing },
        { "sha256", r.file.sha256.toStdString() }, { "spec", r.file.specName.toStdString() },
        { "host", r.file.host.toStdString() }, { "knobscope", r.file.knobscopeVersion.toStdString() },
        { "server_versions", r.file.serverVersions.toStdString() }, { "started_at", r.file.startedAt.toStdString() },
        { "tags", r.tags.toStdString() }, { "note", r.file.note.toStdString() },
        { "config", r.arm.config.toStdString() }, { "arm", r.arm.arm.toStdString() },
        { "model", r.arm.model.toStdString() }, { "knobs", knobs }, { "requests", r.arm.requests },
        { "errors", r.arm.errors }, { "ttft_ms_p50", figureJson(r.arm.ttftP50) },
        { "ttft_ms_p99", figureJson(r.arm.ttftP99) }, { "tpot_ms_p50", figureJson(r.arm.tpotP50) },
        { "e2e_ms_p50", figureJson(r.arm.e2eP50) }, { "req_per_s", r.arm.reqPerS ? json(*r.arm.reqPerS) : json() },
        { "out_tok_per_s", r.arm.outTokPerS ? json(*r.arm.outTokPerS) : json() },
        { "ci95_method", r.arm.intervalMethod.toStdString() } };
}

QString number(const std::optional<double>& v, int decimals)
{
    return v ? QString::number(*v, 'f', decimals) : QStringLiteral("-");
}

void printTable(const std::vector<ks::CatalogueRow>& rows)
{
    std::printf("%6s  %-16s  %-18s  %-12s  %-10s  %-16s  %6s  %5s  %9s  %9s  %8s  %7s\n", "ID", "started", "spec",
        "config", "arm", "model", "reqs", "errs", "TTFT p50", "TTFT p99", "TPOT p50", "req/s");
    for (const ks::CatalogueRow& r : rows) {
        const QString started = r.file.startedAt.left(16).replace(QLatin1Char('T'), QLatin1Char(' '));
        std::printf("%6lld  %-16s  %-18s  %-12s  %-10s  %-16s  %6lld  %5lld  %9s  %9s  %8s  %7s%s\n",
            static_cast<long long>(r.id), qPrintable(started), qPrintable(r.file.specName.left(18)),
            qPrintable(r.arm.config.left(12)), qPrintable(r.arm.arm.left(10)), qPrintable(r.arm.model.left(16)),
            static_cast<long long>(r.arm.requests), static_cast<long long>(r.arm.errors),
            qPrintable(number(r.arm.ttftP50.value, 1)), qPrintable(number(r.arm.ttftP99.value, 1)),
            qPrintable(number(r.arm.tpotP50.value, 2)), qPrintable(number(r.arm.reqPerS, 2)),
            r.missing ? "  (file missing)" : "");
    }
    std::printf("%zu configuration-arms\n", rows.size());
}

} // namespace

int runsCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The run library: every run file knobscope wrote, imported or merged, newest first, a row per configuration "
        "and arm with its headline figures (ms) and their intervals. `knobscope runs rescan DIR` catalogues the run "
        "files under DIR and marks the ones gone as missing; the files stay the source of truth. See "
        "docs/library.md."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("rescan"),
        QStringLiteral("rescan DIR: catalogue the run files under DIR."), QStringLiteral("[rescan DIR]"));
    parser.addOption({ QStringLiteral("where"),
        QStringLiteral("Select rows: FIELD=VALUE (model, host, server, spec, config, arm, since, knob.NAME) or text; "
                       "repeat to combine."),
        QStringLiteral("TERM") });
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print the rows as a JSON array.") });
    addLibraryOptions(parser, false);
    if (const auto exitCode = parseOrExit(parser, arguments, "knobscope runs"))
        return *exitCode;
    const LibraryChoice choice = libraryChoiceOf(parser);
    const QStringList positional = parser.positionalArguments();
    const bool rescan = positional.value(0) == QLatin1String("rescan");
    if ((!positional.isEmpty() && !rescan) || (rescan && positional.size() != 2)) {
        std::fputs("knobscope runs: give nothing (list) or 'rescan DIR'\n", stderr);
        return 2;
    }
    ks::CatalogueFilter filter;
    QString error;
    if (!ks::parseCatalogueFilter(parser.values(QStringLiteral("where")), &filter, &error)) {
        std::fprintf(stderr, "knobscope runs: %s\n", qPrintable(error));
        return 2;
    }
    if (rescan && !QFileInfo(positional[1]).isDir()) {
        std::fprintf(stderr, "knobscope runs rescan: no such folder: %s\n", qPrintable(positional[1]));
        return 2;
    }
    auto catalogue = ks::RunCatalogue::open(choice.path, &error);
    if (!catalogue) {
        std::fprintf(stderr, "knobscope runs: %s\n", qPrintable(error));
        return 2;
    }
    if (!catalogue->message().isEmpty())
        std::fprintf(stderr, "knobscope runs: %s\n", qPrintable(catalogue->message()));
    if (rescan) {
        const ks::RescanResult result = catalogue->rescan(positional[1]);
        for (const QString& problem : result.problems)
            std::fprintf(stderr, "knobscope runs rescan: skipped %s\n", qPrintable(problem));
        std::printf("%d added, %d unchanged, %d found at a new path, %d missing; %d files in %s\n", result.added,
            result.unchanged, result.moved, result.missing, catalogue->fileCount(), qPrintable(catalogue->path()));
        return 0;
    }
    const std::vector<ks::CatalogueRow> rows = catalogue->rows(filter, &error);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "knobscope runs: %s\n", qPrintable(error));
        return 2;
    }
    if (parser.isSet(QStringLiteral("json"))) {
        json out = json::array();
        for (const ks::CatalogueRow& r : rows)
            out.push_back(rowJson(r));
        std::printf("%s\n", out.dump(2).c_str());
    } else {
        printTable(rows);
    }
    return 0;
}
