#include "knobrangecharts.h"

#include "compare/knobresponse.h"
#include "compare/searchheatmap.h"
#include "exportablechart.h"
#include "feeds/runfileloader.h"
#include "knobplot.h"
#include "paretoplot.h"

#include <QCoreApplication>
#include <QFile>

#include <map>
#include <set>

namespace ks {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("KnobRangePanel", text);
}

// Probe outputs that changed per configuration (any of the drift checks), for the "drift" metric.
std::map<QString, int> driftCounts(const LoadedRunFile& result)
{
    std::map<QString, int> out;
    if (!result.hasProbes)
        return out;
    for (const ConfigDrift& c : result.drift.configs) {
        std::set<QString> changed;
        for (const QStringList* list : { &c.withinRun, &c.acrossRestart, &c.acrossConfig, &c.mismatches })
            changed.insert(list->begin(), list->end());
        out[c.config] = int(changed.size());
    }
    return out;
}

bool writePoints(const nlohmann::json& points, const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    f.write(QByteArray::fromStdString(points.dump(2) + '\n'));
    return true;
}

ParetoChart paretoOf(const LoadedRunFile& result, ParetoY y)
{
    return paretoChart(result.comparison, result.file ? result.file->environment() : nlohmann::json(), y);
}

} // namespace

bool hasKnobChart(const LoadedRunFile& result)
{
    return !varyingKnobs(result.comparison).isEmpty();
}

bool hasParetoChart(const LoadedRunFile& result)
{
    return paretoOf(result, ParetoY::TokensPerUser).points.size() >= 2;
}

bool hasSearchHeatmap(const LoadedRunFile& result)
{
    return result.file && searchKnobNames(result.file->search).size() >= 2;
}

QString knobRangeTitle(const LoadedRunFile& result, const QString& what)
{
    const QString name = result.file ? result.file->experimentName(tr("experiment")) : tr("experiment");
    return QStringLiteral("%1 · %2").arg(name, what);
}

bool drawKnobResponse(
    KnobPlot& plot, const LoadedRunFile& result, const QString& knob, const QString& metric, QString* error)
{
    KnobResponse response;
    const std::map<QString, int> drift = driftCounts(result);
    if (!knobResponse(result.comparison, knob, metric, &response, error, &drift))
        return false;
    plot.setResponse(knobRangeTitle(result, tr("%1 against %2").arg(response.metricTitle, knob)), response);
    return true;
}

void drawPareto(ParetoPlot& plot, const LoadedRunFile& result, ParetoY y)
{
    const ParetoChart chart = paretoOf(result, y);
    plot.setChart(knobRangeTitle(result,
                      chart.yKind == ParetoY::TokensPerUser ? tr("Pareto front: speed per user against throughput")
                                                            : tr("Pareto front: TTFT p99 against throughput")),
        chart);
    plot.replot();
}

bool exportKnobChart(const LoadedRunFile& result, const QString& knob, const QString& metric, const QString& path,
    const QString& pointsPath, const QSize& size, QString* error)
{
    KnobPlot plot;
    if (!drawKnobResponse(plot, result, knob, metric, error))
        return false;
    return (pointsPath.isEmpty() || writePoints(knobResponseJson(plot.response()), pointsPath, error))
        && (path.isEmpty() || exportChart(plot, path, size, error));
}

bool exportParetoChart(const LoadedRunFile& result, ParetoY y, const QString& path, const QString& pointsPath,
    const QSize& size, QString* error)
{
    ParetoPlot plot;
    drawPareto(plot, result, y);
    if (plot.chart().points.empty()) {
        *error = tr("no configuration has both output tokens/s and the y figure: nothing to chart");
        return false;
    }
    return (pointsPath.isEmpty() || writePoints(paretoJson(plot.chart()), pointsPath, error))
        && (path.isEmpty() || exportChart(plot, path, size, error));
}

} // namespace ks
