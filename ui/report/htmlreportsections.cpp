#include "htmlreportsections.h"

#include "compare/compareformat.h"
#include "compare/intervalnotes.h"
#include "compare/reasoningfigures.h"
#include "compare/sweepcompare.h"
#include "drift/driftanalysis.h"
#include "metrics/runsummary.h"
#include "metrics/ttftsplit.h"
#include "server/serverversion.h"
#include "store/runfile.h"
#include "store/summaryline.h"
#include "telemetry/hostenvironment.h"

#include <QStringList>

#include <utility>
#include <vector>

namespace ks {

namespace {

using json = nlohmann::json;

QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

QString esc(const std::string& text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString stringOf(const json& object, const char* key)
{
    const json v = object.value(key, json());
    return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
}

// A table row: its heading cell (escaped HTML), then cells, each text or a whole <td>.
QString row(const QStringList& cells, const QString& head)
{
    QString out = QStringLiteral("<tr><th scope=\"row\">%1</th>").arg(head);
    for (const QString& cell : cells)
        out += cell.startsWith(QLatin1String("<td")) ? cell : QStringLiteral("<td>%1</td>").arg(cell);
    return out + QStringLiteral("</tr>\n");
}

// `header`: the column headings, escaped HTML. A "text" table holds sentences, not figures.
QString table(const QStringList& header, const QString& body, const char* cssClass = "figures")
{
    QString out
        = QStringLiteral("<div class=\"scroll\"><table class=\"%1\">\n<thead><tr>").arg(QLatin1String(cssClass));
    for (const QString& h : header)
        out += QStringLiteral("<th scope=\"col\">%1</th>").arg(h);
    return out + QStringLiteral("</tr></thead>\n<tbody>\n") + body + QStringLiteral("</tbody></table></div>\n");
}

QString paragraph(const QString& escapedText, const char* cssClass = "note")
{
    return QStringLiteral("<p class=\"%1\">%2</p>\n").arg(QLatin1String(cssClass), escapedText);
}

// compareCell()'s "value (ratio [low-high]*)" split in two lines: the value,
// then the ratio to the baseline, in bold when its interval excludes 1.
QString compareTd(const ComparedConfig& config, const CompareColumn& column, bool isBaseline)
{
    const QString text = compareCell(config, column, isBaseline);
    const qsizetype open = text.indexOf(QLatin1String(" ("));
    if (open < 0 || !text.endsWith(QLatin1Char(')')))
        return QStringLiteral("<td>%1</td>").arg(esc(text));
    const QString ratio = text.mid(open + 2, text.size() - open - 3);
    const bool significant = ratio.endsWith(QLatin1Char('*'));
    return QStringLiteral("<td%1>%2<span class=\"ratio\">%3</span></td>")
        .arg(significant ? QStringLiteral(" class=\"sig\"") : QString(), esc(text.left(open)), esc(ratio));
}

QString configHead(const ComparedConfig& config, bool isBaseline)
{
    QStringList tags;
    if (isBaseline)
        tags << QStringLiteral("<span class=\"tag\">baseline</span>");
    if (config.gentle)
        tags << QStringLiteral("<span class=\"tag\">%1</span>")
                    .arg(config.waitingShare ? QStringLiteral("gentle: waiting in %1 % of scrapes")
                                                   .arg(*config.waitingShare * 100, 0, 'f', 0)
                                             : QStringLiteral("gentle"));
    if (config.workloadDiffers.value_or(false))
        tags << QStringLiteral("<span class=\"tag warn\">different workload</span>");
    if (config.summaryOnly)
        tags << QStringLiteral("<span class=\"tag\">summary only</span>");
    const QString name = esc(config.config);
    return tags.isEmpty() ? name
                          : name + QStringLiteral("<div class=\"tags\">%1</div>").arg(tags.join(QLatin1Char(' ')));
}

QString diagnoses(const ComparedArm& arm)
{
    QString items;
    if (arm.why)
        items += QStringLiteral("<li><b>Whole arm</b>: %1 <span class=\"kind\">%2</span></li>\n")
                     .arg(esc(arm.why->text), esc(arm.why->kind));
    for (const ComparedConfig& config : arm.configs)
        if (config.why)
            items += QStringLiteral("<li><b>%1</b>: %2 <span class=\"kind\">%3</span></li>\n")
                         .arg(esc(config.config), esc(config.why->text), esc(config.why->kind));
    return items.isEmpty()
        ? QString()
        : QStringLiteral("<h3>Why the numbers moved</h3>\n<ul class=\"why\">\n") + items + QStringLiteral("</ul>\n");
}

// Reasoning and tool calls per ok request, one row per configuration, when the arm has them.
QString reasoningTools(const ks::ComparedArm& arm)
{
    if (!ks::armHasReasoning(arm))
        return {};
    QStringList header { QStringLiteral("config") };
    for (const ks::ReasoningColumn& c : ks::kReasoningColumns)
        header << esc(QString::fromLatin1(c.title));
    QString body;
    for (const ks::ComparedConfig& config : arm.configs) {
        QStringList cells;
        for (const ks::ReasoningColumn& c : ks::kReasoningColumns)
            cells << esc(ks::reasoningCell(config, c, config.config == arm.baseline));
        body += row(cells, esc(config.config));
    }
    return QStringLiteral("<h3>Reasoning and tool calls</h3>\n") + table(header, body)
        + paragraph(QStringLiteral("Per ok request; reasoning share: of every generated token (reasoning, answer and "
                                   "tool-call deltas); \u201cno tools\u201d: ITL over each request's gaps before its "
                                   "first tool-call delta. Ratios against the baseline, without intervals."));
}

// Where TTFT went, from the server's own figures (docs/metrics.md), as compare --format md says it.
QString ttftSplit(const ComparedArm& arm)
{
    QString body;
    bool any = false;
    for (const ComparedConfig& config : arm.configs) {
        const json& split = config.ttftSplitMs; // passed on as the summary has it (metrics/ttftsplit.h reads it)
        if (!split.is_object()) {
            body += row({ QStringLiteral("n/a"), QStringLiteral("n/a"), QStringLiteral("n/a"),
                            esc(ks::noTtftSplitReason()), QString() },
                esc(config.config));
            continue;
        }
        any = true;
        body += row({ esc(ks::ttftSplitPartText(split, "queue")), esc(ks::ttftSplitPartText(split, "prefill")),
                        esc(ks::ttftSplitPartText(split, "rest")), esc(ks::ttftSplitSource(split)),
                        esc(ks::ttftSplitRequestsText(split)) },
            esc(config.config));
    }
    if (!any)
        return paragraph(QStringLiteral("TTFT split: none: %1.").arg(ks::noTtftSplitReason()));
    return QStringLiteral("<h3>TTFT split, ms</h3>\n")
        + table({ QStringLiteral("config"), QStringLiteral("queue"), QStringLiteral("prefill"), QStringLiteral("rest"),
                    QStringLiteral("source"), QStringLiteral("requests") },
            body)
        + paragraph(QStringLiteral("From the server's own figures, each row naming its source; llamacpp-timings: per "
                                   "request; vllm-histograms: exact means, each percentile known only to the bucket "
                                   "that holds it, rest a mean only."));
}

QString repeats(const ComparedArm& arm)
{
    QString items;
    for (const ComparedConfig& config : arm.configs)
        if (config.repeats)
            items += QStringLiteral("<li><b>%1</b> (%2 runs): %3</li>\n")
                         .arg(esc(config.config))
                         .arg(config.repeats->n)
                         .arg(esc(repeatsSpreadText(*config.repeats)));
    if (items.isEmpty())
        return {};
    return QStringLiteral("<h3>Repeats</h3>\n<ul>\n") + items + QStringLiteral("</ul>\n");
}

// How each configuration's intervals were made; a configuration that never settled stands out.
QString intervalMethods(const ComparedArm& arm)
{
    QString items;
    for (const QString& line : intervalLines(arm))
        items += (line.contains(unsettledText()) ? QStringLiteral("<li class=\"unsettled\">%1</li>\n")
                                                 : QStringLiteral("<li>%1</li>\n"))
                     .arg(esc(line));
    return items.isEmpty() ? QString()
                           : QStringLiteral("<ul class=\"intervals\">\n") + items + QStringLiteral("</ul>\n");
}

QString verdictOf(const SweepPoint& point)
{
    if (!point.verdict.keptUp)
        return QStringLiteral("<td class=\"bad\">fell behind</td>");
    return point.verdict.meetsSlo ? QStringLiteral("<td class=\"good\">meets SLO</td>")
                                  : QStringLiteral("<td class=\"bad\">breaks SLO</td>");
}

// A sweep point's figure: -1 is none.
QString figure(double v, int decimals)
{
    return v >= 0 ? QString::number(v, 'f', decimals) : QStringLiteral("n/a");
}

} // namespace

QString htmlArmSection(const ComparedArm& arm, const QString& id, const QString& charts)
{
    const QString& baseline = arm.baseline;
    QString out = QStringLiteral("<section id=\"%1\">\n<h2>%2 <span class=\"sub\">baseline %3</span></h2>\n")
                      .arg(id, esc(arm.arm), esc(baseline));
    // One column per configuration, the baseline's first as compare puts it: a
    // handful of configurations fit a narrow screen, and each metric reads across.
    QStringList header { QStringLiteral("metric") };
    for (const ComparedConfig& config : arm.configs)
        header << configHead(config, config.config == baseline);
    QString body;
    for (const CompareColumn& c : kCompareColumns) {
        QStringList cells;
        for (const ComparedConfig& config : arm.configs)
            cells << compareTd(config, c, config.config == baseline);
        body += row(cells, esc(QString::fromLatin1(c.title)));
    }
    QStringList errors, waiting;
    for (const ComparedConfig& config : arm.configs) {
        errors << QStringLiteral("%1 (%2 %)").arg(config.errors).arg(config.errorRate * 100, 0, 'f', 1);
        waiting << (config.maxWaiting ? QString::number(*config.maxWaiting) : QStringLiteral("n/a"));
    }
    body += row(errors, QStringLiteral("errors")) + row(waiting, QStringLiteral("peak waiting"));
    if (!specDecodeLine(arm).isEmpty()) { // the server's speculative-decoding counters
        QStringList acceptance, length;
        for (const ComparedConfig& config : arm.configs) {
            acceptance << (config.specAcceptance
                    ? QString::number(*config.specAcceptance * 100, 'f', 1) + QStringLiteral(" %")
                    : QStringLiteral("n/a"));
            length << (config.specMeanAccepted ? QString::number(*config.specMeanAccepted, 'f', 2)
                                               : QStringLiteral("n/a"));
        }
        body
            += row(acceptance, QStringLiteral("spec acceptance")) + row(length, QStringLiteral("mean accepted length"));
    }
    out += table(header, body);
    out += paragraph(
        esc(QStringLiteral("Below each value: its ratio to %1; %2 (in bold).").arg(baseline, intervalLegend(arm))));
    out += intervalMethods(arm);
    if (const QStringList bounds = arm.slo ? sloBounds(*arm.slo) : QStringList(); !bounds.isEmpty())
        out += paragraph(
            esc(QStringLiteral("Goodput counts requests meeting %1.").arg(bounds.join(QStringLiteral(" and ")))));
    else
        out += paragraph(QStringLiteral("No SLO set: goodput equals throughput."));
    if (arm.note)
        out += paragraph(esc(QStringLiteral("Note: %1.").arg(*arm.note)));
    if (arm.warning)
        out += paragraph(QStringLiteral("<b>Warning:</b> ") + esc(*arm.warning), "warn");
    out += diagnoses(arm) + reasoningTools(arm) + ttftSplit(arm) + repeats(arm);
    return out + charts + QStringLiteral("</section>\n");
}

QString htmlSweepSection(const ComparedArm& arm, const QString& id, const QString& charts)
{
    const ComparedSweep sweep = comparedSweepOf(arm);
    QString out = QStringLiteral("<section id=\"%1\">\n<h2>%2 <span class=\"sub\">sweep over %3</span></h2>\n")
                      .arg(id, esc(arm.arm), sweep.overRate ? QStringLiteral("rate") : QStringLiteral("concurrency"));
    out += QStringLiteral("<p class=\"capacity\"><b>Capacity:</b> %1.</p>\n").arg(esc(sweepCapacityLine(arm)));
    QString body;
    for (const QString& config : sweep.configs)
        for (const SweepPoint& p : sweep.points.at(config))
            body += row({ esc(p.run.mid(p.run.indexOf(QLatin1Char('/')) + 1)), figure(p.achievedReqPerS, 2),
                            figure(p.ttftP50, 1), figure(p.ttftP99, 1), figure(p.tpotP50, 1), figure(p.tpotP99, 1),
                            verdictOf(p) },
                esc(config));
    out += table({ QStringLiteral("config"), QStringLiteral("step"), QStringLiteral("achieved req/s"),
                     QStringLiteral("TTFT p50 ms"), QStringLiteral("TTFT p99 ms"), QStringLiteral("TPOT p50 ms"),
                     QStringLiteral("TPOT p99 ms"), QStringLiteral("verdict") },
        body);
    out += paragraph(QStringLiteral("Capacity: the highest step whose every repeat met the SLO at p99 and, for rate "
                                    "steps, completed at least 90 % of the rate its schedule offered."));
    for (const auto& [config, reason] : sweep.stops)
        out += paragraph(esc(QStringLiteral("%1 stopped early: %2.").arg(config, reason)), "warn");
    return out + charts + QStringLiteral("</section>\n");
}

QString htmlDriftSection(const DriftReport& drift, const QString& chart)
{
    QString out
        = QStringLiteral("<section id=\"drift\">\n<h2>Drift <span class=\"sub\">probes at temperature 0</span></h2>\n");
    out += paragraph(esc(QStringLiteral("Probe set %1 version %2 · %3 probes")
                             .arg(stringOf(drift.set, "set"), stringOf(drift.set, "set_version"),
                                 QString::number(drift.probes.size()))),
        "meta");
    QString body;
    for (const ConfigDrift& c : drift.configs) {
        QString head = esc(c.config);
        if (!c.model.isEmpty())
            head += QStringLiteral(" <span class=\"sub\">%1</span>").arg(esc(c.model));
        if (c.isReference)
            head += QStringLiteral(" <span class=\"tag\">reference</span>");
        const QString changed = QStringLiteral("%1 of %2").arg(c.mismatches.size()).arg(c.probes);
        body += row({ QString::number(c.probes), QString::number(c.repeats), QString::number(c.restarts),
                        QString::number(c.errors), QString::number(c.withinRun.size()),
                        c.restarts > 0 ? QString::number(c.acrossRestart.size()) : QStringLiteral("–"),
                        c.isReference ? QStringLiteral("ref") : QString::number(c.acrossConfig.size()),
                        QStringLiteral("<td class=\"%1\">%2</td>")
                            .arg(c.mismatches.isEmpty() ? QStringLiteral("good") : QStringLiteral("bad"), changed) },
            head);
    }
    out += table({ QStringLiteral("configuration"), QStringLiteral("probes"), QStringLiteral("repeats"),
                     QStringLiteral("restarts"), QStringLiteral("errors"), QStringLiteral("within run"),
                     QStringLiteral("across restart"), QStringLiteral("across config"), QStringLiteral("changed") },
        body);
    for (const ConfigDrift& c : drift.configs)
        if (!c.mismatches.isEmpty())
            out += paragraph(
                esc(QStringLiteral("%1 changed: %2").arg(c.config, c.mismatches.join(QStringLiteral(", ")))));
    for (const QString& problem : drift.problems)
        out += paragraph(esc(problem), "warn");
    return out + chart + QStringLiteral("</section>\n");
}

QString htmlWarningsSection(const RunFile& file)
{
    QString body;
    for (const RunData& run : file.runs) {
        if (run.summary)
            for (const QString& w : run.summary->warnings.value_or(QStringList()))
                body += row({ esc(w) }, esc(run.run));
        else
            body += row({ QStringLiteral("no summary: the run did not finish") }, esc(run.run));
    }
    QString out = QStringLiteral("<section id=\"warnings\">\n<h2>Warnings</h2>\n");
    if (body.isEmpty())
        out += paragraph(QStringLiteral("No run reported a warning."));
    else
        out += table({ QStringLiteral("run"), QStringLiteral("warning") }, body, "text");
    if (file.truncated)
        out += paragraph(QStringLiteral("The file ends mid-line: its writer was stopped."), "warn");
    if (!file.issues.empty()) {
        QString issues;
        for (const RunFileIssue& issue : file.issues)
            issues += row({ esc(issue.message) }, QString::number(issue.line));
        out += QStringLiteral("<details><summary>%1 lines read with issues</summary>\n").arg(file.issues.size())
            + table({ QStringLiteral("line"), QStringLiteral("issue") }, issues, "text")
            + QStringLiteral("</details>\n");
    }
    return out + QStringLiteral("</section>\n");
}

QString htmlSetupSection(const RunFile& file)
{
    QString out = QStringLiteral("<section id=\"setup\">\n<h2>Environment and spec</h2>\n");
    const json& environment = file.environment();
    const QString where = environmentText(environment);
    out += paragraph(where.isEmpty() ? QStringLiteral("The file does not say where it ran.") : esc(where), "meta");
    if (const QStringList servers = serverVersionsOf(file); !servers.isEmpty())
        out += paragraph(QStringLiteral("Server: ") + esc(servers.join(QStringLiteral("; "))), "meta");
    if (!environment.empty())
        out += QStringLiteral("<details><summary>Environment (JSON)</summary>\n<pre>%1</pre>\n</details>\n")
                   .arg(esc(environment.dump(2)));
    const json& spec = file.spec();
    if (spec.empty())
        out += paragraph(QStringLiteral("The file has no experiment spec."));
    else
        out += QStringLiteral("<details open><summary>Experiment spec (JSON, as stored in the run file)</summary>\n"
                              "<pre>%1</pre>\n</details>\n")
                   .arg(esc(spec.dump(2)));
    return out + QStringLiteral("</section>\n");
}

QString htmlReportStyle()
{
    return QStringLiteral(R"css(
:root { color-scheme: light; }
body { margin: 0; background: #eef0f3; color: #1d232b;
  font: 15px/1.45 system-ui, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
main { box-sizing: border-box; max-width: 1180px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
h1 { font-size: 1.7em; margin: 0 0 .2em; }
h2 { font-size: 1.35em; margin: 1.8em 0 .5em; padding-top: .6em; border-top: 2px solid #dde1e6; }
h3 { font-size: 1.05em; margin: 1.3em 0 .4em; }
.sub, .meta, .note, figcaption { color: #56606d; }
.sub { font-weight: normal; font-size: .8em; }
.note { font-size: .9em; margin: .3em 0; }
nav ul { padding-left: 1.2em; margin: .4em 0; columns: 2; }
.scroll { display: inline-block; box-sizing: border-box; max-width: 100%; vertical-align: top; overflow-x: auto;
  margin: .6em 0; border: 1px solid #dde1e6; border-radius: 6px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 10px; text-align: right; vertical-align: top; white-space: nowrap; border-bottom: 1px solid #eceff2; }
thead th { background: #f2f4f7; font-weight: 600; vertical-align: top; }
.tags { white-space: normal; font-weight: normal; margin-top: 3px; }
tbody th { text-align: left; font-weight: 600; }
th:first-child { text-align: left; }
tbody tr:last-child > * { border-bottom: 0; }
table.text th, table.text td { text-align: left; white-space: normal; min-width: 6em; }
td .ratio { display: block; font-size: .8em; color: #56606d; }
td.sig .ratio { color: #8a2c0d; font-weight: 700; }
td.good { color: #1d6b35; } td.bad { color: #a12a14; font-weight: 600; }
.tag { display: inline-block; font-size: .75em; font-weight: normal; padding: 0 6px; margin: 1px 0 1px 4px;
  border-radius: 8px; background: #e6ebf2; color: #3b4654; }
.tag.warn { background: #fde7d9; color: #8a2c0d; }
.warn { background: #fff4e5; border-left: 4px solid #e8590c; padding: 6px 12px; border-radius: 0 4px 4px 0; }
.capacity { font-size: 1.05em; }
ul.why, ul.intervals { padding-left: 1.2em; } ul.why li { margin: .25em 0; }
ul.intervals { font-size: .9em; color: #56606d; margin: .3em 0; } li.unsettled { color: #8a2c0d; font-weight: bold; }
.kind { font-size: .75em; color: #56606d; border: 1px solid #c9d0d8; border-radius: 8px; padding: 0 6px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 520px), 1fr)); gap: 14px; margin-top: 1em; }
figure { margin: 0; }
figure.wide { grid-column: 1 / -1; }
svg.chart { display: block; width: 100%; height: auto; border: 1px solid #e3e7ec; border-radius: 6px; background: #fff; }
figcaption { font-size: .8em; margin-top: 2px; }
details { margin: .5em 0; } summary { cursor: pointer; color: #2c4a73; }
pre { overflow-x: auto; background: #f5f7f9; border: 1px solid #e3e7ec; border-radius: 6px; padding: 10px 12px;
  font: 12.5px/1.4 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
footer { margin-top: 2.5em; font-size: .85em; color: #56606d; }
@media (max-width: 700px) {
  body { font-size: 14px; background: #fff; }
  main { padding: 12px 12px 32px; }
  h1 { font-size: 1.35em; }
  nav ul { columns: 1; }
  th, td { padding: 4px 6px; }
  .charts { grid-template-columns: 1fr; gap: 10px; }
}
)css");
}

} // namespace ks
