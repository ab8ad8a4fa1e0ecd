#include "htmlreport.h"

#include "charts/comparecharts.h"
#include "charts/driftcountschart.h"
#include "charts/exportablechart.h"
#include "charts/heatmapexport.h"
#include "charts/knobrangecharts.h"
#include "charts/trendplot.h"
#include "compare/knobresponse.h"
#include "compare/searchreport.h"
#include "feeds/runfileloader.h"
#include "htmlreportsections.h"
#include "library/runcatalogue.h"
#include "library/runtrend.h"
#include "telemetry/hostenvironment.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QFontInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTemporaryDir>

#include <functional>
#include <utility>

namespace ks {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ComparePage", text);
}

// Drawn at this size, a chart's text is nearly as large as the page's in the
// two-column grid; on a narrow screen the SVG shrinks and can be zoomed. The
// knee, with its two axes, SLO lines and six series, takes the whole width.
const QSize kChartSize(640, 400);
const QSize kWideChartSize(960, 600);

const std::pair<const char*, const char*> kLoadCharts[] = {
    { "ttft", "TTFT at p50, p95 and p99 per configuration" },
    { "tpot", "TPOT at p50, p95 and p99 per configuration" },
    { "itl", "inter-token latency at p50, p95 and p99 per configuration" },
    { "e2e", "end-to-end latency at p50, p95 and p99 per configuration" },
    { "throughput", "throughput per configuration" },
    { "cdf-ttft", "distribution of TTFT per configuration" },
    { "cdf-e2e", "distribution of end-to-end latency per configuration" },
};

// Qt writes the family it was asked for ("Sans Serif", a fontconfig alias no
// browser knows); the page names the font Qt drew with, then the generic
// family, so labels keep about the width the chart was laid out for.
QString withFallbackFonts(const QString& svg)
{
    static const QRegularExpression family(QStringLiteral(R"re(font-family="([^"]*)")re"));
    QHash<QString, QString> resolved;
    QString out;
    qsizetype last = 0;
    for (auto it = family.globalMatch(svg); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString asked = m.captured(1);
        auto found = resolved.constFind(asked);
        if (found == resolved.constEnd()) {
            const QString actual = QFontInfo(QFont(asked)).family();
            const QString generic
                = QFontInfo(QFont(asked)).fixedPitch() ? QStringLiteral("monospace") : QStringLiteral("sans-serif");
            found = resolved.insert(asked,
                QStringLiteral("font-family=\"'%1', '%2', %3\"")
                    .arg(actual.toHtmlEscaped(), asked.toHtmlEscaped(), generic));
        }
        out += QStringView(svg).mid(last, m.capturedStart() - last);
        out += *found;
        last = m.capturedEnd();
    }
    out += QStringView(svg).mid(last);
    return out;
}

// QSvgGenerator writes one outer group, then a flat list of groups, each with
// the whole painter state. In those groups, drops what is the initial value
// anyway and the font family most of them name, which the root then names
// once: the drawing stays the same at about half the bytes. Elements inside the
// groups keep every attribute (a text's own fill-opacity="1" may differ from
// its group's).
QString compactGroups(const QString& svg)
{
    static const QRegularExpression group(QStringLiteral(R"re(<g\b[^>]*>)re"));
    static const QRegularExpression family(QStringLiteral(R"re(\sfont-family="[^"]*")re"));
    static const QRegularExpression initial(QStringLiteral(
        R"re(\s(?:stroke-opacity="1"|fill-opacity="1"|font-style="normal"|font-weight="400"|transform="matrix\(1,0,0,1,0,0\)"))re"));
    QHash<QString, int> families;
    for (auto it = group.globalMatch(svg); it.hasNext();)
        if (const QRegularExpressionMatch f = family.match(it.next().captured()); f.hasMatch())
            ++families[f.captured()];
    QString common;
    for (auto it = families.cbegin(); it != families.cend(); ++it)
        if (common.isEmpty() || it.value() > families.value(common))
            common = it.key();
    QString out;
    qsizetype last = 0;
    for (auto it = group.globalMatch(svg); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        QString tag = m.captured();
        tag.remove(initial);
        if (!common.isEmpty())
            tag.replace(common, QString());
        out += QStringView(svg).mid(last, m.capturedStart() - last);
        out += tag;
        last = m.capturedEnd();
    }
    out += QStringView(svg).mid(last);
    const qsizetype rootEnd = out.indexOf(QLatin1Char('>'));
    if (!common.isEmpty() && rootEnd > 0)
        out.insert(rootEnd, common);
    return out;
}

// QSvgGenerator's file made into an inline <svg>: without the XML prolog, its
// size left to CSS (the viewBox keeps the aspect ratio) and the namespace
// declarations dropped (HTML's parser puts <svg> in its namespace). Ids are
// unique per document, not per chart, so each chart's get `prefix`.
QString inlineSvg(const QByteArray& file, const QString& prefix, const QString& label)
{
    QString text = QString::fromUtf8(file);
    const qsizetype start = text.indexOf(QLatin1String("<svg"));
    const qsizetype rootEnd = start < 0 ? -1 : text.indexOf(QLatin1Char('>'), start);
    if (rootEnd < 0)
        return {};
    QString root = text.mid(start, rootEnd - start);
    static const QRegularExpression dropped(
        QStringLiteral(R"re(\s+(?:width|height|version|baseProfile|xmlns(?::\w+)?)="[^"]*")re"));
    root.remove(dropped);
    root += QStringLiteral(" class=\"chart\" role=\"img\" aria-label=\"%1\"").arg(label.toHtmlEscaped());
    text = root + text.mid(rootEnd);
    static const QRegularExpression title(QStringLiteral("<title>[^<]*</title>"));
    text.replace(title, QStringLiteral("<title>%1</title>").arg(label.toHtmlEscaped()));
    // QSvgGenerator opens a group at every change of painter state, most of them left empty.
    static const QRegularExpression emptyGroup(QStringLiteral(R"re(<g\b[^>]*>\s*</g>\s*)re"));
    text.remove(emptyGroup);
    text = compactGroups(withFallbackFonts(text));
    static const QRegularExpression ids(QStringLiteral(R"re(\bid="([^"]*)")re"));
    text.replace(ids, QStringLiteral("id=\"%1-\\1\"").arg(prefix));
    static const QRegularExpression urls(QStringLiteral(R"re(url\(#([^)]*)\))re"));
    text.replace(urls, QStringLiteral("url(#%1-\\1)").arg(prefix));
    static const QRegularExpression hrefs(QStringLiteral(R"re(href="#([^"]*)")re"));
    text.replace(hrefs, QStringLiteral("href=\"#%1-\\1\"").arg(prefix));
    return text.trimmed() + QLatin1Char('\n');
}

// Draws charts through the pages' own SVG export into a temporary folder and
// returns them inlined, each in a <figure>.
class ChartInliner {
public:
    bool ok(QString* error) const
    {
        if (!m_dir.isValid())
            *error = tr("cannot create a temporary folder: %1").arg(m_dir.errorString());
        return m_dir.isValid();
    }

    /// `draw` writes an SVG to the path it is given; a `wide` figure spans the grid.
    bool figure(const std::function<bool(const QString&, QString*)>& draw, const QString& label, QString* html,
        QString* error, bool wide = false)
    {
        const QString prefix = QStringLiteral("c%1").arg(++m_count);
        const QString path = m_dir.filePath(prefix + QStringLiteral(".svg"));
        if (!draw(path, error))
            return false;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            *error = tr("cannot read back %1: %2").arg(path, file.errorString());
            return false;
        }
        const QString svg = inlineSvg(file.readAll(), prefix, label);
        if (svg.isEmpty()) {
            *error = tr("the chart \"%1\" came out without an <svg> element").arg(label);
            return false;
        }
        *html += (wide ? QStringLiteral("<figure class=\"wide\">\n") : QStringLiteral("<figure>\n")) + svg
            + QStringLiteral("</figure>\n");
        return true;
    }

private:
    QTemporaryDir m_dir;
    int m_count = 0;
};

QString charts(const QString& figures)
{
    return figures.isEmpty() ? QString()
                             : QStringLiteral("<div class=\"charts\">\n") + figures + QStringLiteral("</div>\n");
}

QString header(const LoadedRunFile& result, const QString& name)
{
    const RunFile& file = *result.file;
    QStringList configs;
    for (const RunData& run : file.runs)
        if (!configs.contains(run.config))
            configs << run.config;
    QString from = QFileInfo(result.path).fileName().toHtmlEscaped();
    if (!result.picks.isEmpty())
        from = tr("%1 from the run library").arg(result.picks.toHtmlEscaped());
    else if (!result.otherPath.isEmpty())
        from += QStringLiteral(" compared with ") + QFileInfo(result.otherPath).fileName().toHtmlEscaped();
    QStringList facts { tr("Run file %1").arg(from) };
    if (file.experiment.is_object() && file.experiment.value("started_at", nlohmann::json()).is_string())
        facts << tr("started %1")
                     .arg(QString::fromStdString(file.experiment["started_at"].get<std::string>()).toHtmlEscaped());
    facts << tr("%1 runs of %2 configurations").arg(file.runs.size()).arg(configs.size());
    if (!result.baseline.isEmpty())
        facts << tr("baseline %1").arg(result.baseline.toHtmlEscaped());
    const QString where = environmentText(file.environment());
    return QStringLiteral("<header>\n<h1>%1</h1>\n<p class=\"meta\">%2</p>\n%3</header>\n")
        .arg(name.toHtmlEscaped(), facts.join(QStringLiteral(" · ")),
            where.isEmpty() ? QString() : QStringLiteral("<p class=\"meta\">%1</p>\n").arg(where.toHtmlEscaped()));
}

// A search's result (best value, interval, plateau) and its probes in the order run.
QString searchHtml(const nlohmann::json& search)
{
    const QString text = searchText(search);
    if (text.isEmpty())
        return {};
    const QStringList lines = text.split(QLatin1Char('\n'));
    QStringList head;
    for (const QString& line : lines.mid(0, 2))
        head << line.toHtmlEscaped();
    return QStringLiteral("<p><strong>Search</strong>: %1</p>\n<pre>%2</pre>\n")
        .arg(head.join(QStringLiteral("<br>\n")), QStringList(lines.mid(2)).join(QLatin1Char('\n')).toHtmlEscaped());
}

// The knob's range: TTFT p99 and output tokens/s against each knob that varies, and the
// Pareto front when there are 2 points or more; nothing when the file varies no knob.
bool knobRangeSection(
    const LoadedRunFile& result, ChartInliner& inliner, QString* sections, QString* contents, QString* error)
{
    const bool knobs = hasKnobChart(result), pareto = hasParetoChart(result), heatmap = hasSearchHeatmap(result);
    if (!knobs && !pareto && !heatmap)
        return true;
    QString figures;
    if (heatmap) {
        const nlohmann::json& search = result.file->search;
        if (!inliner.figure(
                [&](const QString& svg, QString* why) {
                    return exportSearchHeatmap(search,
                        tr("%1 over two knobs").arg(QString::fromStdString(search.value("metric", std::string()))), {},
                        svg, kWideChartSize, why);
                },
                tr("The search over several knobs: each area coloured by its nearest probe, the "
                   "recommendation ringed, the top starred, the plateau boxed"),
                &figures, error, true))
            return false;
    }
    for (const QString& knob : knobs ? varyingKnobs(result.comparison) : QStringList())
        for (const char* metric : { "ttft_ms.p99", "out_tok_per_s" })
            if (!inliner.figure(
                    [&](const QString& svg, QString* why) {
                        return exportKnobChart(result, knob, QLatin1String(metric), svg, {}, kChartSize, why);
                    },
                    tr("%1 against %2").arg(QLatin1String(metric), knob), &figures, error))
                return false;
    if (pareto
        && !inliner.figure(
            [&](const QString& svg, QString* why) {
                return exportParetoChart(result, ParetoY::TokensPerUser, svg, {}, kWideChartSize, why);
            },
            tr("Pareto front: output tokens/s per user against output tokens/s"), &figures, error, true))
        return false;
    *sections += QStringLiteral("<section id=\"knob-range\">\n<h2>Knob range</h2>\n<p>")
        + tr("Each knob that varies across configurations against TTFT p99 and output tokens/s, one "
             "line per arm, with compare's 95 % interval as a band; the Pareto chart puts every "
             "configuration and arm at its output tokens/s and its tokens/s per user (1000 / TPOT "
             "p50), the front drawn and labelled, dominated points faded. A configuration without "
             "the figure is named under the chart, not drawn as 0.")
              .toHtmlEscaped()
        + QStringLiteral("</p>\n") + searchHtml(result.file ? result.file->search : nullptr) + charts(figures)
        + QStringLiteral("</section>\n");
    *contents += QStringLiteral("<li><a href=\"#knob-range\">Knob range</a></li>\n");
    return true;
}

// Each configuration-arm of the file across the run library's runs of it (TTFT p99),
// where the library holds two or more; nothing without a library or such runs.
bool trendSection(const LoadedRunFile& result, const QString& libraryPath, ChartInliner& inliner, QString* sections,
    QString* contents, QString* error)
{
    if (libraryPath.isEmpty() || !result.picks.isEmpty() || !result.otherPath.isEmpty())
        return true;
    QString why;
    auto catalogue = RunCatalogue::open(libraryPath, &why);
    const std::vector<CatalogueRow> rows = catalogue ? catalogue->rows({}, &why) : std::vector<CatalogueRow>();
    const QString spec = result.file->experimentName(QFileInfo(result.path).completeBaseName());
    QString figures;
    QStringList lines;
    for (const ComparedArm& entry : result.comparison) {
        if (entry.isSweep())
            continue;
        const QString& arm = entry.arm;
        for (const ComparedConfig& config : entry.configs) {
            const RunTrend trend = trendOf(rows, spec, config.config, arm, QStringLiteral("ttft_ms.p99"));
            if (trend.points.size() < 2)
                continue;
            if (!inliner.figure([&trend](const QString& svg,
                                    QString* e) { return exportTrendChart(trend, svg, kWideChartSize, e); },
                    tr("%1 / %2: TTFT p99 across %3 runs").arg(trend.config, arm).arg(trend.points.size()), &figures,
                    error, true))
                return false;
            lines << tr("%1 / %2: %3 runs, %4 change points")
                         .arg(trend.config, arm)
                         .arg(trend.points.size())
                         .arg(trend.changes.size())
                         .toHtmlEscaped();
        }
    }
    if (figures.isEmpty())
        return true;
    *sections += QStringLiteral("<section id=\"trends\">\n<h2>Trends across runs</h2>\n<p>")
        + tr("From the run library %1: each configuration-arm of this file across every catalogued run of it, "
             "oldest left, with each run's 95 % interval; a dashed line marks a run where the figure moved to a "
             "new level by more than the intervals and the runs' scatter allow (docs/library.md, \"Trends\").")
              .arg(libraryPath)
              .toHtmlEscaped()
        + QStringLiteral("</p>\n<p>") + lines.join(QStringLiteral("<br>\n")) + QStringLiteral("</p>\n")
        + charts(figures) + QStringLiteral("</section>\n");
    *contents += QStringLiteral("<li><a href=\"#trends\">Trends</a></li>\n");
    return true;
}

} // namespace

bool writeHtmlReport(const LoadedRunFile& result, const QString& path, QString* error, const QString& libraryPath)
{
    if (!result.file || result.comparison.empty()) {
        *error = tr("nothing to export: no load arms");
        return false;
    }
    ChartInliner inliner;
    if (!inliner.ok(error))
        return false;
    const QString name = result.file->experimentName(QStringLiteral("experiment"));
    QString sections, contents;
    int index = 0;
    for (const ComparedArm& entry : result.comparison) {
        const QString& arm = entry.arm;
        const QString id = QStringLiteral("arm-%1").arg(++index);
        const bool sweep = entry.isSweep();
        QString figures;
        auto drawOne = [&result, &arm](const QString& chart, QSize size = kChartSize) {
            return [&result, &arm, chart, size](const QString& svg, QString* why) {
                return exportCompareChart(result, chart, arm, svg, size, why);
            };
        };
        if (sweep) {
            if (!inliner.figure(drawOne(QStringLiteral("knee"), kWideChartSize),
                    tr("%1: latency against achieved load (knee)").arg(arm), &figures, error, true))
                return false;
        } else {
            for (const auto& [chart, what] : kLoadCharts)
                if (!inliner.figure(drawOne(QString::fromLatin1(chart)),
                        QStringLiteral("%1: %2").arg(arm, QString::fromLatin1(what)), &figures, error))
                    return false;
        }
        sections += sweep ? htmlSweepSection(entry, id, charts(figures)) : htmlArmSection(entry, id, charts(figures));
        contents += QStringLiteral("<li><a href=\"#%1\">%2</a>%3</li>\n")
                        .arg(id, arm.toHtmlEscaped(), sweep ? QStringLiteral(" (sweep)") : QString());
    }
    if (!knobRangeSection(result, inliner, &sections, &contents, error)
        || !trendSection(result, libraryPath, inliner, &sections, &contents, error))
        return false;
    if (result.hasProbes) {
        QString figure;
        if (!inliner.figure(
                [&result](const QString& svg, QString* why) { return exportDriftCounts(result, svg, kChartSize, why); },
                tr("probes changed per configuration"), &figure, error))
            return false;
        sections += htmlDriftSection(result.drift, charts(figure));
        contents += QStringLiteral("<li><a href=\"#drift\">Drift</a></li>\n");
    }
    sections += htmlWarningsSection(*result.file) + htmlSetupSection(*result.file);
    contents += QStringLiteral("<li><a href=\"#warnings\">Warnings</a></li>\n"
                               "<li><a href=\"#setup\">Environment and spec</a></li>\n");

    const QString version = QStringLiteral(KNOBSCOPE_VERSION);
    const QString html = QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                                        "<meta name=\"generator\" content=\"knobscope %1\">\n"
                                        "<title>%2 · knobscope report</title>\n<style>%3</style>\n</head>\n"
                                        "<body>\n<main>\n")
                             .arg(version, name.toHtmlEscaped(), htmlReportStyle())
        + header(result, name) + QStringLiteral("<nav>\n<ul>\n") + contents + QStringLiteral("</ul>\n</nav>\n")
        + sections
        + QStringLiteral("<footer>Written by knobscope %1 from %2. One file: no script, and nothing loaded from "
                         "elsewhere.</footer>\n</main>\n</body>\n</html>\n")
              .arg(version, QFileInfo(result.path).fileName().toHtmlEscaped());

    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly)) {
        *error = tr("cannot write %1: %2").arg(path, out.errorString());
        return false;
    }
    out.write(html.toUtf8());
    if (!out.commit()) {
        *error = tr("cannot write %1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

} // namespace ks
