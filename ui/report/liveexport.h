#pragma once

#include <QSize>
#include <QString>

namespace ks {

class LivePage;
class ReplayFeed;

/// Feeds `live` the runs, snapshots and summaries `feed` replays, as the
/// dashboard's replay does (MainWindow::connectFeed).
void replayIntoLivePage(ReplayFeed& feed, LivePage& live);

/// Replays `runFile` into an off-screen Live page, exactly as the dashboard
/// replays it, with `baselineFile` (if not empty) drawn faded beneath, and
/// writes its `chart` (one of liveChartNames(), pages/livechart.h) to `out`
/// (PNG, SVG or PDF by suffix). Runs its own event loop.
bool exportLiveChart(const QString& runFile, const QString& chart, const QString& baselineFile, const QString& out,
    const QSize& size, QString* error);

} // namespace ks
