#include "driftcountschart.h"

#include "barchart.h"
#include "chartstyle.h"
#include "exportablechart.h"
#include "feeds/runfileloader.h"

#include <QCoreApplication>

namespace ks {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("DriftPage", text);
}

} // namespace

void drawDriftCounts(BarChart& bars, const LoadedRunFile& result)
{
    if (!result.hasProbes) {
        bars.setData(QString(), {}, {}, QString());
        return;
    }
    const DriftReport& report = result.drift;
    QVector<BarChart::Set> sets;
    int index = 0;
    for (const ConfigDrift& c : report.configs)
        sets << BarChart::Set { c.config, configColor(index++),
            { double(c.withinRun.size()), double(c.acrossRestart.size()), double(c.acrossConfig.size()),
                double(c.mismatches.size()) } };
    bars.setData(QStringLiteral("%1 · drift at temperature 0 · probes changed (of %2)")
                     .arg(result.file->experimentName(QStringLiteral("experiment")))
                     .arg(report.probes.size()),
        { tr("within"), tr("restart"), tr("config"), tr("any") }, sets, tr("probes changed"));
}

bool exportDriftCounts(const LoadedRunFile& result, const QString& path, const QSize& size, QString* error)
{
    if (!result.hasProbes) {
        *error = QStringLiteral("%1 has no probe passes to chart").arg(result.path);
        return false;
    }
    BarChart bars;
    drawDriftCounts(bars, result);
    return exportChart(bars, path, size, error);
}

} // namespace ks
