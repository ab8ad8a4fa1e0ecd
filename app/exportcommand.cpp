// knobscope export: the dashboard's charts and tables, written headless
// (offscreen) for scripts and CI by the chart layer the pages draw with (no
// page is built; the charts are widgets, so a QApplication still is).
#include "commands.h"
#include "loadflags.h"

#include "charts/comparecharts.h"
#include "charts/driftcountschart.h"
#include "charts/heatmapexport.h"
#include "charts/knobrangecharts.h"
#include "feeds/runfileloader.h"
#include "library/runcatalogue.h"
#include "report/comparereport.h"
#include "report/htmlreport.h"
#include "report/liveexport.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>

#include <cstdio>

int exportMain(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen"); // no display needed to draw into files
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes a chart of a run file as PNG, SVG or PDF, the comparison table as CSV or Markdown, a whole\n"
        "report folder, or the report as one self-contained HTML file, exactly as the dashboard's Compare and\n"
        "Drift pages export them."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("export"), QStringLiteral("The subcommand."));
    parser.addPositionalArgument(QStringLiteral("RUNS.jsonl"), QStringLiteral("A run file."));
    parser.addOption({ QStringLiteral("chart"),
        QStringLiteral("ttft, tpot, itl, e2e, throughput (grouped bars), cdf-ttft, cdf-tpot, cdf-itl, cdf-e2e, "
                       "reasoning, tool-calls, itl-no-tools, cdf-itl-no-tools (runs with reasoning or tool calls), "
                       "knee (a sweep arm: latency against achieved load, SLO and capacity), or drift (probe changes "
                       "per configuration), or live-ttft, live-tpot, live-itl, live-throughput, live-server, "
                       "live-errors, live-gpu, live-drift (the Live page's chart over experiment time, as a replay "
                       "draws it), knob:NAME (a metric against a knob's values, one line per arm, 95 % bands; NAME "
                       "may be model), pareto (output tokens/s per user against aggregate output tokens/s, the "
                       "front drawn), or heatmap[:KNOB1,KNOB2] (a search over several knobs: its objective over "
                       "two of them, the first two by default; the others fixed at the recommendation)."),
        QStringLiteral("CHART") });
    parser.addOption({ QStringLiteral("metric"),
        QStringLiteral("With --chart knob:NAME: ttft_ms.p99 (default), any of ttft_ms, tpot_ms, itl_ms, e2e_ms "
                       "with .p50, .p95 or .p99, req_per_s, out_tok_per_s, goodput_req_per_s, capacity (a sweep "
                       "arm's) or drift."),
        QStringLiteral("METRIC"), QStringLiteral("ttft_ms.p99") });
    parser.addOption({ QStringLiteral("y"),
        QStringLiteral("With --chart pareto: tpot (tokens/s per user, 1000 / TPOT p50; default) or ttft_p99."),
        QStringLiteral("Y"), QStringLiteral("tpot") });
    parser.addOption({ QStringLiteral("points"),
        QStringLiteral("With --chart knob:NAME or pareto: also write the plotted points, and those left out, as "
                       "JSON (then --out is optional)."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("format"), QStringLiteral("png, svg or pdf (default: from --out)."),
        QStringLiteral("FORMAT") });
    parser.addOption({ QStringLiteral("out"), QStringLiteral("Output file."), QStringLiteral("FILE") });
    parser.addOption(
        { QStringLiteral("arm"), QStringLiteral("Arm to chart (default: the first)."), QStringLiteral("ARM") });
    parser.addOption({ QStringLiteral("baseline"),
        QStringLiteral("Baseline configuration; with a live-* chart, a run file drawn faded beneath instead."),
        QStringLiteral("LABEL|FILE") });
    parser.addOption({ QStringLiteral("size"), QStringLiteral("Width x height (default 1200x750)."),
        QStringLiteral("WxH"), QStringLiteral("1200x750") });
    parser.addOption({ QStringLiteral("table"), QStringLiteral("Write the comparison table (.csv or .md) instead."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("report"),
        QStringLiteral("Write every chart and table into DIR, with an index.md."), QStringLiteral("DIR") });
    parser.addOption({ QStringLiteral("html"),
        QStringLiteral("Write the report as one HTML file (inline SVG charts, tables with 95 % intervals, drift, "
                       "environment and spec; it loads nothing from elsewhere)."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("calibration"),
        QStringLiteral("An A/A calibration (a run file from knobscope run SPEC --aa N) for the intervals of arms "
                       "that ran once on a side, as compare --calibration. Default: the one the experiment spec "
                       "names, when it is there."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("library"),
        QStringLiteral("--html: the run library whose runs of each configuration give the report's trends "
                       "(default $KNOBSCOPE_LIBRARY or the user's data folder)."),
        QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("no-trends"), QStringLiteral("--html: leave the run library's trends out.") });
    parser.process(app);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2) {
        std::fputs("knobscope export: give exactly one run file\n", stderr);
        return 2;
    }
    const QStringList wh = parser.value(QStringLiteral("size")).split(QLatin1Char('x'));
    const QSize size = wh.size() == 2 ? QSize(wh[0].toInt(), wh[1].toInt()) : QSize();
    QString out = parser.value(QStringLiteral("out"));
    const QString chart = parser.value(QStringLiteral("chart"));
    const bool wantsChart = parser.isSet(QStringLiteral("chart"));
    const bool wantsHtml = parser.isSet(QStringLiteral("html"));
    if (!wantsChart && !wantsHtml && !parser.isSet(QStringLiteral("table"))
        && !parser.isSet(QStringLiteral("report"))) {
        std::fputs("knobscope export: say what to write: --chart with --out, --table FILE, --report DIR, or --html "
                   "FILE\n",
            stderr);
        return 2;
    }
    const bool rangeChart = chart.startsWith(QLatin1String("knob:")) || chart == QLatin1String("pareto");
    ks::ParetoY paretoY = ks::ParetoY::TokensPerUser;
    if (rangeChart && chart == QLatin1String("pareto")
        && !ks::parseParetoY(parser.value(QStringLiteral("y")), &paretoY)) {
        std::fputs("knobscope export: --y: expected tpot or ttft_p99\n", stderr);
        return 2;
    }
    if (wantsChart) {
        if (out.isEmpty() && !(rangeChart && parser.isSet(QStringLiteral("points")))) {
            std::fputs(
                "knobscope export: --chart needs --out FILE (or, for knob:NAME and pareto, --points FILE)\n", stderr);
            return 2;
        }
        const QString format = parser.value(QStringLiteral("format"));
        if (!out.isEmpty() && !format.isEmpty() && QFileInfo(out).suffix().compare(format, Qt::CaseInsensitive) != 0)
            out += QLatin1Char('.') + format.toLower(); // the format decides the file type
    }

    if (wantsChart && (chart == QLatin1String("heatmap") || chart.startsWith(QLatin1String("heatmap:")))) {
        // Straight from the file's search line: no page, no comparison.
        if (parser.isSet(QStringLiteral("table")) || parser.isSet(QStringLiteral("report")) || wantsHtml
            || parser.isSet(QStringLiteral("points"))) {
            std::fputs("knobscope export: --chart heatmap is written on its own (no --table, --report, --html or "
                       "--points)\n",
                stderr);
            return 2;
        }
        QString error;
        if (!ks::exportSearchHeatmap(positional[1], chart.mid(8),
                parser.isSet(QStringLiteral("metric")) ? parser.value(QStringLiteral("metric")) : QString(), out, size,
                &error)) {
            std::fprintf(stderr, "knobscope export: %s\n", qPrintable(error));
            return 2;
        }
        std::fprintf(stderr, "knobscope export: wrote %s\n", qPrintable(out));
        return 0;
    }

    if (wantsChart && chart.startsWith(QLatin1String("live-"))) {
        // The Live page's chart, with a baseline run file beneath it: a replay, not a comparison.
        if (parser.isSet(QStringLiteral("table")) || parser.isSet(QStringLiteral("report")) || wantsHtml) {
            std::fputs(
                "knobscope export: a live-* chart is written on its own (no --table, --report or --html)\n", stderr);
            return 2;
        }
        QString error;
        if (!ks::exportLiveChart(
                positional[1], chart.mid(5), parser.value(QStringLiteral("baseline")), out, size, &error)) {
            std::fprintf(stderr, "knobscope export: %s\n", qPrintable(error));
            return 2;
        }
        std::fprintf(stderr, "knobscope export: wrote %s\n", qPrintable(out));
        return 0;
    }

    ks::RunFileLoader loader;
    QEventLoop wait;
    std::shared_ptr<const ks::LoadedRunFile> result;
    const bool needIntervals = parser.isSet(QStringLiteral("table")) || parser.isSet(QStringLiteral("report"))
        || wantsHtml || rangeChart; // the knob chart's bands are compare's intervals
    QObject::connect(&loader, &ks::RunFileLoader::loaded, [&](std::shared_ptr<const ks::LoadedRunFile> r) {
        result = r;
        if (!r->error.isEmpty() || r->intervals || !needIntervals)
            wait.quit();
    });
    loader.setCalibrationPath(parser.value(QStringLiteral("calibration")));
    loader.load(positional[1], parser.value(QStringLiteral("baseline")), needIntervals);
    wait.exec();
    if (!result->error.isEmpty()) {
        std::fprintf(stderr, "knobscope export: %s\n", qPrintable(result->error));
        return 2;
    }
    printReadIssues("knobscope export", result->file->issues);
    if (!result->calibrationNote.isEmpty())
        std::fprintf(stderr, "knobscope export: note: %s\n", qPrintable(result->calibrationNote));

    QString error;
    bool ok = true;
    if (parser.isSet(QStringLiteral("report")))
        ok = ks::writeCompareReport(*result, parser.value(QStringLiteral("report")), &error);
    if (ok && wantsHtml)
        ok = ks::writeHtmlReport(*result, parser.value(QStringLiteral("html")), &error,
            parser.isSet(QStringLiteral("no-trends"))     ? QString()
                : parser.isSet(QStringLiteral("library")) ? parser.value(QStringLiteral("library"))
                                                          : ks::RunCatalogue::defaultPath());
    if (ok && parser.isSet(QStringLiteral("table")))
        ok = ks::writeCompareTable(result->comparison, parser.value(QStringLiteral("table")), &error);
    if (ok && wantsChart) {
        const QString points = parser.value(QStringLiteral("points"));
        if (chart.startsWith(QLatin1String("knob:"))) {
            ok = ks::exportKnobChart(
                *result, chart.mid(5), parser.value(QStringLiteral("metric")), out, points, size, &error);
        } else if (chart == QLatin1String("pareto")) {
            ok = ks::exportParetoChart(*result, paretoY, out, points, size, &error);
        } else if (chart == QLatin1String("drift")) {
            ok = ks::exportDriftCounts(*result, out, size, &error);
        } else {
            QString arm = parser.value(QStringLiteral("arm"));
            if (arm.isEmpty()) {
                arm = ks::comparedArms(*result).value(0);
                if (chart == QLatin1String("knee")) // the first sweep arm
                    for (const ks::ComparedArm& a : result->comparison)
                        if (a.isSweep()) {
                            arm = a.arm;
                            break;
                        }
            }
            ok = ks::exportCompareChart(*result, chart, arm, out, size, &error);
        }
    }
    if (!ok) {
        std::fprintf(stderr, "knobscope export: %s\n", qPrintable(error));
        return 2;
    }
    if (wantsChart && !out.isEmpty())
        std::fprintf(stderr, "knobscope export: wrote %s\n", qPrintable(out));
    if (wantsChart && parser.isSet(QStringLiteral("points")))
        std::fprintf(stderr, "knobscope export: wrote %s\n", qPrintable(parser.value(QStringLiteral("points"))));
    return 0;
}
