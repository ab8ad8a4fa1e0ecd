#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

namespace ks {

class LivePage;
class ReplayFeed;

/// Feeds `live` the runs, snapshots and summaries `feed` replays, as the
/// dashboard's replay does (MainWindow::connectFeed).
void replayIntoLivePage(ReplayFeed& feed, LivePage& live);

/// The Live page's time-series charts that `export --chart live-NAME` writes.
QStringList liveChartNames();

/// Replays `runFile` into an off-screen Live page, exactly as the dashboard
/// replays it, with `baselineFile` (if not empty) drawn faded beneath, and
/// writes its `chart` ("ttft", "tpot", "itl", "throughput", "server", "errors",
/// "gpu", "drift") to `out` (PNG, SVG or PDF by suffix). Runs its own event loop.
bool exportLiveChart(const QString& runFile, const QString& chart, const QString& baselineFile, const QString& out,
    const QSize& size, QString* error);

} // namespace ks
