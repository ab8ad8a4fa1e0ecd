#include "liveexport.h"

#include "charts/timeseriesplot.h"
#include "feeds/baseline.h"
#include "models/runlistmodel.h"
#include "pages/livechart.h"
#include "pages/livepage.h"
#include "source/replayfeed.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>

namespace ks {

void replayIntoLivePage(ReplayFeed& feed, LivePage& live)
{
    QObject::connect(
        &feed, &ReplayFeed::runStarted, &live, [&live](const RunInfo& info) { live.runStarted(info.run); });
    QObject::connect(&feed, &ReplayFeed::snapshotReady, &live, &LivePage::addSnapshot);
    QObject::connect(&feed, &ReplayFeed::runFinished, &live, &LivePage::runFinished);
    QObject::connect(&feed, &ReplayFeed::roundDecided, &live, &LivePage::addRoundDecision);
}

bool exportLiveChart(const QString& runFile, const QString& chart, const QString& baselineFile, const QString& out,
    const QSize& size, QString* error)
{
    const std::optional<LiveChart> which = liveChartFromName(chart);
    if (!which) {
        *error
            = QStringLiteral("no live chart '%1' (one of: %2)").arg(chart, liveChartNames().join(QLatin1String(", ")));
        return false;
    }
    LivePage live;
    QEventLoop wait;
    if (!baselineFile.isEmpty()) {
        BaselineLoader loader;
        QString failure;
        QObject::connect(&loader, &BaselineLoader::loaded, &wait, [&](std::shared_ptr<const Baseline> baseline) {
            live.setBaseline(std::move(baseline));
            wait.quit();
        });
        QObject::connect(&loader, &BaselineLoader::failed, &wait, [&](const QString&, const QString& why) {
            failure = why;
            wait.quit();
        });
        loader.load(baselineFile);
        wait.exec();
        if (!failure.isEmpty()) {
            *error = QStringLiteral("baseline %1: %2").arg(baselineFile, failure);
            return false;
        }
    }
    if (!QFileInfo(runFile).isFile()) {
        *error = QStringLiteral("no such file: %1").arg(runFile);
        return false;
    }
    ReplayFeed feed(runFile, 0);
    replayIntoLivePage(feed, live);
    QObject::connect(&feed, &ReplayFeed::finished, &wait, &QEventLoop::quit);
    QTimer::singleShot(0, &feed, &ReplayFeed::start); // an unreadable file finishes at once: after exec() begins
    wait.exec();
    if (live.runs()->rowCount() == 0) {
        *error = QStringLiteral("%1 has no run to chart").arg(runFile);
        return false;
    }
    TimeSeriesPlot* plot = live.chart(*which);
    plot->fitToData();
    plot->setExportTitle(
        QStringLiteral("%1 · %2%3")
            .arg(QFileInfo(runFile).fileName(), plot->title(),
                baselineFile.isEmpty()
                    ? QString()
                    : QStringLiteral(" · baseline %1 (faded)").arg(QFileInfo(baselineFile).fileName())));
    return exportChart(*plot, out, size, error);
}

} // namespace ks
