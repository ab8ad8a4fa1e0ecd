// knobscope runs: the run library (docs/library.md). `runs` lists, `runs rescan DIR` fills it from run files,
// `runs trend SPEC CONFIG ARM` follows one configuration across runs.
#include "commands.h"
#include "libraryoptions.h"
#include "loadflags.h"

#include "charts/trendplot.h"
#include "library/runcatalogue.h"
#include "library/runtrend.h"

#include <QApplication>
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
    std::printf("%6s  %-16s  %-14s  %-16s  %-12s  %-16s  %6s  %5s  %9s  %9s  %8s  %7s\n", "ID", "started", "spec",
        "config", "arm", "model", "reqs", "errs", "TTFT p50", "TTFT p99", "TPOT p50", "req/s");
    for (const ks::CatalogueRow& r : rows) {
        const QString started = r.file.startedAt.left(16).replace(QLatin1Char('T'), QLatin1Char(' '));
        std::printf("%6lld  %-16s  %-14s  %-16s  %-12s  %-16s  %6lld  %5lld  %9s  %9s  %8s  %7s%s\n",
            static_cast<long long>(r.id), qPrintable(started), qPrintable(r.file.specName.left(14)),
            qPrintable(r.arm.config.left(16)), qPrintable(r.arm.arm.left(12)), qPrintable(r.arm.model.left(16)),
            static_cast<long long>(r.arm.requests), static_cast<long long>(r.arm.errors),
            qPrintable(number(r.arm.ttftP50.value, 1)), qPrintable(number(r.arm.ttftP99.value, 1)),
            qPrintable(number(r.arm.tpotP50.value, 2)), qPrintable(number(r.arm.reqPerS, 2)),
            r.missing ? "  (file missing)" : "");
    }
    std::printf("%zu configuration-arms\n", rows.size());
}

json optionalJson(const std::optional<double>& v)
{
    return v ? json(*v) : json();
}

json trendJson(const ks::RunTrend& t, const ks::TrendOptions& options)
{
    json points = json::array();
    for (const ks::TrendPoint& p : t.points)
        points.push_back({ { "id", p.id }, { "path", p.path.toStdString() },
            { "started_at", p.startedAt.toStdString() }, { "server_versions", p.serverVersions.toStdString() },
            { "missing", p.missing }, { "value", optionalJson(p.figure.value) },
            { "ci95", p.figure.low && p.figure.high ? json::array({ *p.figure.low, *p.figure.high }) : json() },
            { "ci95_method", p.intervalMethod.toStdString() } });
    json changes = json::array();
    for (const ks::TrendChange& c : t.changes)
        changes.push_back(
            { { "index", c.index }, { "id", t.points[std::size_t(c.index)].id }, { "ratio", c.ratio }, { "z", c.z } });
    json notes = json::array();
    for (const QString& n : t.notes)
        notes.push_back(n.toStdString());
    return { { "spec", t.spec.toStdString() }, { "config", t.config.toStdString() }, { "arm", t.arm.toStdString() },
        { "metric", t.metric.toStdString() }, { "points", points }, { "changes", changes },
        { "method",
            { { "name", "level shift, Bonferroni" }, { "z_threshold", t.threshold }, { "alpha", options.alpha },
                { "min_change", options.minChange } } },
        { "notes", notes } };
}

void printTrend(const ks::RunTrend& t, const ks::TrendOptions& options)
{
    std::printf("%s / %s / %s: %s over %zu runs, oldest first\n", qPrintable(t.spec), qPrintable(t.config),
        qPrintable(t.arm), qPrintable(t.metric), t.points.size());
    std::printf("%6s  %-20s  %-24s  %10s  %-21s  %s\n", "ID", "started", "server", "value", "95 % interval", "");
    for (int i = 0; i < int(t.points.size()); ++i) {
        const ks::TrendPoint& p = t.points[std::size_t(i)];
        QString mark;
        for (const ks::TrendChange& c : t.changes)
            if (c.index == i)
                mark = QStringLiteral("<- change: %1x the level before (z %2)")
                           .arg(c.ratio, 0, 'f', 2)
                           .arg(c.z, 0, 'f', 1);
        const QString interval = p.figure.low && p.figure.high
            ? QStringLiteral("[%1-%2]").arg(*p.figure.low, 0, 'f', 1).arg(*p.figure.high, 0, 'f', 1)
            : QStringLiteral("-");
        std::printf("%6lld  %-20s  %-24s  %10s  %-21s  %s%s\n", static_cast<long long>(p.id),
            qPrintable(p.startedAt.left(19).replace(QLatin1Char('T'), QLatin1Char(' '))),
            qPrintable(p.serverVersions.section(QStringLiteral(" ("), 0, 0).left(24)),
            qPrintable(number(p.figure.value, 2)), qPrintable(interval), qPrintable(mark),
            p.missing ? "  (file missing)" : "");
    }
    std::printf("change points: %zu (a run outside the level before it by more than z %.2f, Bonferroni over the "
                "series at alpha %.2f, and by at least %.0f %%, %.0f %% until some level has two runs; "
                "docs/library.md)\n",
        t.changes.size(), t.threshold, options.alpha, options.minChange * 100, options.minChange * 200);
    for (const QString& n : t.notes)
        std::printf("note: %s\n", qPrintable(n));
}

} // namespace

int runsCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The run library: every run file knobscope wrote, imported or merged, newest first, a row per configuration "
        "and arm with its headline figures (ms) and their intervals. `knobscope runs rescan DIR` catalogues the run "
        "files under DIR and marks the ones gone as missing; the files stay the source of truth. `knobscope runs "
        "trend SPEC CONFIG ARM --metric ttft_ms.p99` follows one configuration across runs and marks where it "
        "moved. See docs/library.md."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("rescan"),
        QStringLiteral("rescan DIR: catalogue the run files under DIR. trend SPEC CONFIG ARM: one configuration "
                       "across runs."),
        QStringLiteral("[rescan DIR | trend SPEC CONFIG ARM]"));
    parser.addOption({ QStringLiteral("metric"),
        QStringLiteral("trend: the figure to follow: ") + ks::trendMetrics().join(QStringLiteral(", ")),
        QStringLiteral("METRIC"), QStringLiteral("ttft_ms.p99") });
    parser.addOption({ QStringLiteral("out"),
        QStringLiteral("trend: also write the trend chart to FILE (.png, .svg or .pdf), as the Runs page exports it."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("size"), QStringLiteral("trend --out: width x height (default 1200x700)."),
        QStringLiteral("WxH"), QStringLiteral("1200x700") });
    parser.addOption({ QStringLiteral("min-change"),
        QStringLiteral("trend: the smallest relative move marked as a change (default 0.05)."),
        QStringLiteral("FRACTION"), QStringLiteral("0.05") });
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
    const bool trend = positional.value(0) == QLatin1String("trend");
    if ((!positional.isEmpty() && !rescan && !trend) || (rescan && positional.size() != 2)
        || (trend && positional.size() != 4) || (!trend && parser.isSet(QStringLiteral("out")))) {
        std::fputs("knobscope runs: give nothing (list), 'rescan DIR' or 'trend SPEC CONFIG ARM'\n", stderr);
        return 2;
    }
    ks::TrendOptions trendOptions;
    if (trend) {
        if (!ks::trendMetrics().contains(parser.value(QStringLiteral("metric")))) {
            std::fprintf(stderr, "knobscope runs trend: --metric: one of %s\n",
                qPrintable(ks::trendMetrics().join(QStringLiteral(", "))));
            return 2;
        }
        bool ok = false;
        trendOptions.minChange = parser.value(QStringLiteral("min-change")).toDouble(&ok);
        if (!ok || !(trendOptions.minChange >= 0) || trendOptions.minChange >= 10) {
            std::fputs("knobscope runs trend: --min-change: a fraction such as 0.05\n", stderr);
            return 2;
        }
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
    if (trend) {
        const ks::RunTrend t = ks::trendOf(
            rows, positional[1], positional[2], positional[3], parser.value(QStringLiteral("metric")), trendOptions);
        if (t.points.empty() && t.notes.isEmpty()) {
            std::fprintf(stderr,
                "knobscope runs trend: no catalogued run of %s / %s / %s (names are exact; `knobscope runs` lists "
                "them)\n",
                qPrintable(positional[1]), qPrintable(positional[2]), qPrintable(positional[3]));
            return 1;
        }
        if (parser.isSet(QStringLiteral("json")))
            std::printf("%s\n", trendJson(t, trendOptions).dump(2).c_str());
        else
            printTrend(t, trendOptions);
        if (const QString out = parser.value(QStringLiteral("out")); !out.isEmpty()) {
            const QStringList wh = parser.value(QStringLiteral("size")).split(QLatin1Char('x'));
            const QSize size = wh.size() == 2 ? QSize(wh[0].toInt(), wh[1].toInt()) : QSize();
            if (!size.isValid() || size.isEmpty()) {
                std::fputs("knobscope runs trend: --size: WxH such as 1200x700\n", stderr);
                return 2;
            }
            if (!ks::exportTrendChart(t, out, size, &error)) {
                std::fprintf(stderr, "knobscope runs trend: %s\n", qPrintable(error));
                return 2;
            }
            std::fprintf(stderr, "knobscope runs trend: wrote %s\n", qPrintable(out));
        }
        return 0;
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

int runsChartMain(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen"); // no display needed to draw into a file
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("knobscope"));
    QStringList arguments = QApplication::arguments();
    arguments.removeAt(1); // as main() hands every command its arguments
    arguments[0] = QStringLiteral("knobscope runs");
    return runsCommand(arguments);
}
