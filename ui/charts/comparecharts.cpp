#include "comparecharts.h"

#include "barchart.h"
#include "cdfplot.h"
#include "chartstyle.h"
#include "compare/sweepcompare.h"
#include "comparemetrics.h"
#include "exportablechart.h"
#include "feeds/runfileloader.h"
#include "kneeplot.h"

#include <QCoreApplication>

namespace ks {

namespace {

// The page's words: the charts are the Compare page's, wherever they are drawn.
QString tr(const char* text)
{
    return QCoreApplication::translate("ComparePage", text);
}

const char* const kLatencyAndThroughput[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms", "throughput" };

// A configuration that ran another workload than the baseline says so wherever it is named.
QString configLegend(const ComparedConfig& config)
{
    return config.config + (config.workloadDiffers.value_or(false) ? tr(" (different workload)") : QString());
}

} // namespace

QStringList comparedArms(const LoadedRunFile& result)
{
    QStringList out;
    for (const ComparedArm& a : result.comparison)
        out << a.arm;
    return out;
}

QString compareChartTitle(const LoadedRunFile& result, const QString& arm, const QString& what)
{
    const QString name = result.file ? result.file->experimentName(tr("experiment")) : tr("experiment");
    QStringList configs;
    const ComparedArm* a = armNamed(result.comparison, arm);
    if (a) {
        for (const ComparedConfig& c : a->configs)
            configs << c.config;
        configs << comparedSweepOf(*a).configs; // a sweep's entry names its configurations there
    }
    const bool differ = a && a->differentWorkloads;
    return QStringLiteral("%1 · %2 · %3 · %4%5")
        .arg(
            name, arm, what, configs.join(QStringLiteral(" vs ")), differ ? tr(" · ⚠ different workloads") : QString());
}

bool compareChartHasMetric(const LoadedRunFile& result, const QString& key)
{
    for (const char* base : kLatencyAndThroughput)
        if (key == QLatin1String(base))
            return true;
    return isReasoningMetric(key) && comparisonHasMetric(result.comparison, key);
}

void drawMetricBars(BarChart& bars, const LoadedRunFile& result, const QString& armName, const QString& key)
{
    const ComparedArm* arm = armNamed(result.comparison, armName);
    if (!arm)
        return;
    QVector<BarChart::Set> sets;
    int index = 0;
    const bool throughput = key == QLatin1String("throughput");
    const QString title
        = throughput ? tr("throughput (requests/s)") : tr("%1 (ms)").arg(key.section(QLatin1Char('_'), 0, 0).toUpper());
    const MetricBars extra = isReasoningMetric(key) ? reasoningBars(*arm, key) : MetricBars();
    const std::optional<LatencyMetric> latency = latencyMetricOf(key.toStdString());
    for (const ComparedConfig& c : arm->configs) {
        BarChart::Set set;
        set.name = configLegend(c);
        set.color = configColor(index++);
        if (!extra.categories.isEmpty()) {
            set.values = extra.values.value(index - 1);
        } else if (throughput) {
            set.values = { c.reqPerS, c.goodputReqPerS };
        } else if (latency && c.latencyOf(*latency)) {
            for (LatencyStat s : kLatencyStats)
                set.values << c.value(*latency, s).value_or(0);
        } else {
            set.values = { 0, 0, 0 };
        }
        sets << set;
    }
    bars.setData(compareChartTitle(result, armName, extra.categories.isEmpty() ? title : extra.what),
        !extra.categories.isEmpty() ? extra.categories
            : throughput            ? QStringList { tr("req/s"), tr("goodput req/s") }
                         : QStringList { QStringLiteral("p50"), QStringLiteral("p95"), QStringLiteral("p99") },
        sets,
        !extra.categories.isEmpty() ? extra.yLabel
            : throughput            ? tr("requests/s")
                                    : tr("ms"));
}

void drawMetricCdf(CdfPlot& cdf, const LoadedRunFile& result, const QString& armName, const QString& key)
{
    const ComparedArm* arm = armNamed(result.comparison, armName);
    if (!arm)
        return;
    const QString metric = key == QLatin1String("itl-no-tools") ? tr("ITL without tool deltas")
                                                                : key.section(QLatin1Char('_'), 0, 0).toUpper();
    cdf.clear(compareChartTitle(result, armName, tr("%1 CDF").arg(metric)), tr("%1 (ms)").arg(metric));
    const bool throughput = key == QLatin1String("throughput");
    const bool perRequest = isReasoningMetric(key) && key != QLatin1String("itl-no-tools"); // no distribution
    if (!throughput && !perRequest && result.file) {
        int i = 0;
        for (const ComparedConfig& c : arm->configs) {
            for (const RunData& r : result.file->runs)
                if (r.run == c.run)
                    cdf.addCurve(configLegend(c), configColor(i), metricValuesOf(r, key));
            ++i;
        }
    }
    cdf.replot();
}

bool drawKnee(KneePlot& knee, const LoadedRunFile& result, const QString& armName)
{
    const ComparedArm* arm = armNamed(result.comparison, armName);
    if (arm && !arm->isSweep() && arm->sweepArm) // a step: chart its sweep
        arm = armNamed(result.comparison, *arm->sweepArm);
    if (!arm || !arm->isSweep())
        return false;
    const ComparedSweep sweep = comparedSweepOf(*arm);
    knee.reset(compareChartTitle(result, arm->arm, sweep.overRate ? tr("knee over rate") : tr("knee over concurrency")),
        sweep.overRate, arm->slo.value_or(Slo {}));
    // The points as compare recomputed them, so chart and table agree.
    int index = 0;
    for (const QString& config : sweep.configs) {
        for (const SweepPoint& point : sweep.points.at(config))
            knee.addPoint(point, configColor(index));
        ++index;
    }
    knee.replot();
    return true;
}

bool exportCompareChart(const LoadedRunFile& result, const QString& chart, const QString& arm, const QString& path,
    const QSize& size, QString* error)
{
    if (!armNamed(result.comparison, arm)) {
        *error = tr("no arm \"%1\" to export (arms: %2)").arg(arm, comparedArms(result).join(QStringLiteral(", ")));
        return false;
    }
    if (chart == QLatin1String("knee")) {
        KneePlot knee;
        if (!drawKnee(knee, result, arm)) {
            QStringList sweeps;
            for (const ComparedArm& a : result.comparison)
                if (a.isSweep())
                    sweeps << a.arm;
            *error = sweeps.isEmpty()
                ? tr("no sweep arm to chart a knee for")
                : tr("arm \"%1\" is no sweep (sweep arms: %2)").arg(arm, sweeps.join(QStringLiteral(", ")));
            return false;
        }
        return exportChart(knee, path, size, error);
    }
    const bool cdf = chart.startsWith(QLatin1String("cdf-"));
    const QString metric = cdf ? chart.mid(4) : chart;
    const QString key
        = metric == QLatin1String("throughput") || isReasoningMetric(metric) ? metric : metric + QStringLiteral("_ms");
    if (isReasoningMetric(metric) && !compareChartHasMetric(result, key)) {
        *error = tr("%1 has no figures for chart \"%2\" (no request with reasoning or tool calls)")
                     .arg(result.path, chart);
        return false;
    }
    const bool hasCdf = key.endsWith(QLatin1String("_ms")) || key == QLatin1String("itl-no-tools");
    if (!compareChartHasMetric(result, key) || (cdf && !hasCdf)) {
        *error = tr("unknown chart \"%1\" (ttft, tpot, itl, e2e, throughput, reasoning, tool-calls, itl-no-tools, or "
                    "cdf-ttft and so on)")
                     .arg(chart);
        return false;
    }
    if (cdf) {
        CdfPlot plot;
        drawMetricCdf(plot, result, arm, key);
        return exportChart(plot, path, size, error);
    }
    BarChart bars;
    drawMetricBars(bars, result, arm, key);
    return exportChart(bars, path, size, error);
}

} // namespace ks
