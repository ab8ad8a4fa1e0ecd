#include "charts/heatmapexport.h"

#include "charts/heatmapplot.h"
#include "compare/searchheatmap.h"
#include "store/runfile.h"

#include <QFileInfo>
#include <QStringList>

namespace ks {

bool exportSearchHeatmap(const nlohmann::json& search, const QString& title, const QString& knobs, const QString& out,
    const QSize& size, QString* error)
{
    const QStringList pair = knobs.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!knobs.isEmpty() && pair.size() != 2) {
        *error = QStringLiteral("heatmap:%1: name two knobs, heatmap:KNOB1,KNOB2").arg(knobs);
        return false;
    }
    const auto map = searchHeatmap(search, pair.value(0).trimmed(), pair.value(1).trimmed(), error);
    if (!map)
        return false;
    HeatmapPlot plot;
    plot.resize(size);
    plot.setHeatmap(title, *map);
    return exportChart(plot, out, size, error);
}

bool exportSearchHeatmap(const QString& runFile, const QString& knobs, const QString& metric, const QString& out,
    const QSize& size, QString* error)
{
    RunFile file;
    if (!readRunFile(runFile, &file, error))
        return false;
    if (!file.search.is_object()) {
        *error = QStringLiteral("%1 has no search line (a run of a spec with \"search\", finished or stopped)")
                     .arg(runFile);
        return false;
    }
    const QString objective = QString::fromStdString(file.search.value("metric", std::string()));
    if (!metric.isEmpty() && metric != objective) {
        *error = QStringLiteral("the heatmap draws the search's objective, %1, the only figure its probes keep; for "
                                "another figure per probe, --chart knob:KNOB --metric %2")
                     .arg(objective, metric);
        return false;
    }
    const QString name
        = QString::fromStdString(file.experiment.value("spec", nlohmann::json::object())
                                     .value("name", QFileInfo(runFile).completeBaseName().toStdString()));
    const QString title = QStringLiteral("%1 · %2 over two knobs")
                              .arg(name, QString::fromStdString(file.search.value("metric", std::string())));
    return exportSearchHeatmap(file.search, title, knobs, out, size, error);
}

} // namespace ks
