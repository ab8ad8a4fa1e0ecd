#include "livechart.h"

namespace ks {

QString liveChartName(LiveChart chart)
{
    switch (chart) {
    case LiveChart::Ttft:
        return QStringLiteral("ttft");
    case LiveChart::Tpot:
        return QStringLiteral("tpot");
    case LiveChart::Itl:
        return QStringLiteral("itl");
    case LiveChart::Throughput:
        return QStringLiteral("throughput");
    case LiveChart::Server:
        return QStringLiteral("server");
    case LiveChart::Errors:
        return QStringLiteral("errors");
    case LiveChart::Gpu:
        return QStringLiteral("gpu");
    case LiveChart::Drift:
        return QStringLiteral("drift");
    }
    return {};
}

std::optional<LiveChart> liveChartFromName(const QString& name)
{
    for (LiveChart chart : kLiveCharts)
        if (liveChartName(chart) == name)
            return chart;
    return std::nullopt;
}

QStringList liveChartNames()
{
    QStringList names;
    for (LiveChart chart : kLiveCharts)
        names << liveChartName(chart);
    return names;
}

} // namespace ks
