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
QString configLegend(const nlohmann::json& config)
{
    return QString::fromStdString(config["config"].get<std::string>())
        + (config.value("workload_differs", false) ? tr(" (different workload)") : QString());
}

} // namespace

const nlohmann::json* comparedArm(const nlohmann::json& compare, const QString& arm)
{
    for (const nlohmann::json& a : compare) {
        if (a.value("arm", std::string()) == arm.toStdString())
            return &a;
    }
    return nullptr;
}

QStringList comparedArms(const LoadedRunFile& result)
{
    QStringList out;
    for (const nlohmann::json& a : result.compare)
        out << QString::fromStdString(a.value("arm", std::string()));
    return out;
}

QString compareChartTitle(const LoadedRunFile& result, const QString& arm, const QString& what)
{
    const QString name = result.file ? result.file->experimentName(tr("experiment")) : tr("experiment");
    QStringList configs;
    const nlohmann::json* a = comparedArm(result.compare, arm);
    if (a) {
        for (const nlohmann::json& c : (*a)["configs"])
            configs << QString::fromStdString(c["config"].get<std::string>());
        if (a->contains("sweep")) // a sweep's entry names its configurations there
            for (const nlohmann::json& c : (*a)["sweep"].value("configs", nlohmann::json::array()))
                configs << QString::fromStdString(c.get<std::string>());
    }
    const bool differ = a && a->value("different_workloads", false);
    return QStringLiteral("%1 · %2 · %3 · %4%5")
        .arg(
            name, arm, what, configs.join(QStringLiteral(" vs ")), differ ? tr(" · ⚠ different workloads") : QString());
}

bool compareChartHasMetric(const LoadedRunFile& result, const QString& key)
{
    for (const char* base : kLatencyAndThroughput)
        if (key == QLatin1String(base))
            return true;
    return isReasoningMetric(key) && comparisonHasMetric(result.compare, key);
}

void drawMetricBars(BarChart& bars, const LoadedRunFile& result, const QString& armName, const QString& key)
{
    const nlohmann::json* arm = comparedArm(result.compare, armName);
    if (!arm)
        return;
    QVector<BarChart::Set> sets;
    int index = 0;
    const bool throughput = key == QLatin1String("throughput");
    const QString title
        = throughput ? tr("throughput (requests/s)") : tr("%1 (ms)").arg(key.section(QLatin1Char('_'), 0, 0).toUpper());
    const MetricBars extra = isReasoningMetric(key) ? reasoningBars(*arm, key) : MetricBars();
    for (const nlohmann::json& c : (*arm)["configs"]) {
        BarChart::Set set;
        set.name = configLegend(c);
        set.color = configColor(index++);
        if (!extra.categories.isEmpty()) {
            set.values = extra.values.value(index - 1);
        } else if (throughput) {
            set.values = { c.value("req_per_s", 0.0), c.value("goodput_req_per_s", 0.0) };
        } else if (c[key.toStdString()].is_object()) {
            const nlohmann::json& m = c[key.toStdString()];
            set.values = { m.value("p50", 0.0), m.value("p95", 0.0), m.value("p99", 0.0) };
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
    const nlohmann::json* arm = comparedArm(result.compare, armName);
    if (!arm)
        return;
    const QString metric = key == QLatin1String("itl-no-tools") ? tr("ITL without tool deltas")
                                                                : key.section(QLatin1Char('_'), 0, 0).toUpper();
    cdf.clear(compareChartTitle(result, armName, tr("%1 CDF").arg(metric)), tr("%1 (ms)").arg(metric));
    const bool throughput = key == QLatin1String("throughput");
    const bool perRequest = isReasoningMetric(key) && key != QLatin1String("itl-no-tools"); // no distribution
    if (!throughput && !perRequest && result.file) {
        int i = 0;
        for (const nlohmann::json& c : (*arm)["configs"]) {
            const std::string run = c.value("run", std::string());
            for (const RunData& r : result.file->runs)
                if (r.run.toStdString() == run)
                    cdf.addCurve(configLegend(c), configColor(i), metricValuesOf(r, key));
            ++i;
        }
    }
    cdf.replot();
}

bool drawKnee(KneePlot& knee, const LoadedRunFile& result, const QString& armName)
{
    const nlohmann::json* arm = comparedArm(result.compare, armName);
    if (arm && !arm->contains("sweep") && arm->contains("sweep_arm")) // a step: chart its sweep
        arm = comparedArm(result.compare, QString::fromStdString((*arm)["sweep_arm"].get<std::string>()));
    if (!arm || !arm->contains("sweep"))
        return false;
    const nlohmann::json& sweep = (*arm)["sweep"];
    const bool overRate = sweep.value("over", std::string("rate")) == "rate";
    Slo slo;
    const nlohmann::json sloJson = arm->value("slo", nlohmann::json::object());
    slo.ttftMs = sloJson.value("ttft_ms", 0.0);
    slo.tpotMs = sloJson.value("tpot_ms", 0.0);
    const QString name = QString::fromStdString((*arm)["arm"].get<std::string>());
    knee.reset(
        compareChartTitle(result, name, overRate ? tr("knee over rate") : tr("knee over concurrency")), overRate, slo);
    // The points as compare recomputed them, so chart and table agree.
    int index = 0;
    const nlohmann::json configs = sweep.value("configs", nlohmann::json::array());
    const nlohmann::json points = sweep.value("points", nlohmann::json::object());
    for (const auto& config : configs) {
        const QString label = QString::fromStdString(config.get<std::string>());
        const nlohmann::json list = points.value(config.get<std::string>(), nlohmann::json::array());
        for (const auto& p : list) {
            SweepPoint point;
            point.config = label;
            point.run = QString::fromStdString(p.value("run", std::string()));
            point.step = QString::fromStdString(p.value("step", std::string()));
            if (p["value"].is_number())
                point.value = p["value"].get<double>();
            point.repeat = p.value("repeat", 1);
            point.achievedReqPerS = p.value("achieved_req_per_s", 0.0);
            auto ms = [&](const char* key) { return p[key].is_number() ? p[key].get<double>() : -1.0; };
            point.ttftP50 = ms("ttft_p50_ms");
            point.ttftP99 = ms("ttft_p99_ms");
            point.tpotP50 = ms("tpot_p50_ms");
            point.tpotP99 = ms("tpot_p99_ms");
            point.verdict.meetsSlo = p.value("meets_slo", true);
            point.verdict.keptUp = p.value("kept_up", true);
            knee.addPoint(point, configColor(index));
        }
        ++index;
    }
    knee.replot();
    return true;
}

bool exportCompareChart(const LoadedRunFile& result, const QString& chart, const QString& arm, const QString& path,
    const QSize& size, QString* error)
{
    if (!comparedArm(result.compare, arm)) {
        *error = tr("no arm \"%1\" to export (arms: %2)").arg(arm, comparedArms(result).join(QStringLiteral(", ")));
        return false;
    }
    if (chart == QLatin1String("knee")) {
        KneePlot knee;
        if (!drawKnee(knee, result, arm)) {
            QStringList sweeps;
            for (const nlohmann::json& a : result.compare)
                if (a.contains("sweep"))
                    sweeps << QString::fromStdString(a["arm"].get<std::string>());
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
