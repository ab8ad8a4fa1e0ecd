#pragma once

// The Live page's time-series charts, by type: the page holds one of each,
// tests and export ask for one by value, and the names that `export --chart
// live-NAME` and the series keys use are mapped here, once.

#include <QString>
#include <QStringList>

#include <array>
#include <optional>

namespace ks {

enum class LiveChart { Ttft, Tpot, Itl, Throughput, Server, Errors, Gpu, Drift };

/// Every Live chart, in the page's order.
inline constexpr std::array kLiveCharts { LiveChart::Ttft, LiveChart::Tpot, LiveChart::Itl, LiveChart::Throughput,
    LiveChart::Server, LiveChart::Errors, LiveChart::Gpu, LiveChart::Drift };

/// "ttft", "tpot", "itl", "throughput", "server", "errors", "gpu" or "drift".
QString liveChartName(LiveChart chart);
/// The chart of that name, or none.
std::optional<LiveChart> liveChartFromName(const QString& name);
/// Every chart's name, in the page's order.
QStringList liveChartNames();

} // namespace ks
