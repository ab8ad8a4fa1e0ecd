#include "livebaselineoverlay.h"

#include "charts/chartstyle.h"
#include "charts/timeseriesplot.h"
#include "models/runlistmodel.h"
#include "store/runid.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QToolButton>
#include <QWidget>

#include <tuple>

namespace ks {

LiveBaselineOverlay::LiveBaselineOverlay(
    const Charts* charts, RunListModel* runs, std::function<QColor(const QString& run)> colorOf, QWidget* page)
    : QObject(page)
    , m_charts(charts)
    , m_runs(runs)
    , m_colorOf(std::move(colorOf))
    , m_page(page)
    , m_button(new QToolButton(page))
    , m_menu(new QMenu(page))
{
    m_button->setText(tr("Basel&ine"));
    m_button->setPopupMode(QToolButton::InstantPopup);
    m_button->setMenu(m_menu);
    m_button->setToolTip(tr("Draw a saved run faded under the charts, each of its arms aligned at the start "
                            "of the live arm of the same name (else the same arm, else the same position), "
                            "with live/baseline ratios in the run table"));
    rebuildMenu();
}

void LiveBaselineOverlay::setBaseline(std::shared_ptr<const Baseline> baseline)
{
    m_baseline = std::move(baseline);
    drawArms();
    m_runs->clearBaselineRatios();
    for (auto it = m_lastSnapshots.cbegin(); it != m_lastSnapshots.cend(); ++it)
        updateRatio(it.key(), it.value()); // runs still going
    for (auto it = m_finishedRuns.cbegin(); it != m_finishedRuns.cend(); ++it)
        updateRatioAtEnd(it.key(), it.value());
    rebuildMenu();
}

void LiveBaselineOverlay::addCandidate(const QString& path)
{
    m_candidates.removeAll(path);
    m_candidates.prepend(path);
    while (m_candidates.size() > 8)
        m_candidates.removeLast();
    rebuildMenu();
}

void LiveBaselineOverlay::armStarted(const QString& run, double offset)
{
    m_armStarts.push_back({ run, offset });
    drawArm(int(m_armStarts.size()) - 1);
}

void LiveBaselineOverlay::snapshotAdded(const QString& run, const RunSnapshot& snapshot)
{
    m_lastSnapshots.insert(run, snapshot);
    updateRatio(run, snapshot);
}

void LiveBaselineOverlay::runFinished(const QString& run, const RunSummary& summary)
{
    m_finishedRuns.insert(run, summary);
    updateRatioAtEnd(run, summary);
}

void LiveBaselineOverlay::clearRuns()
{
    m_lastSnapshots.clear();
    m_finishedRuns.clear();
    m_armStarts.clear();
}

void LiveBaselineOverlay::rebuildMenu()
{
    m_menu->clear();
    m_menu->addAction(tr("&Open run file…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            m_page, tr("Baseline run file"), QString(), tr("Run files (*.jsonl);;All files (*)"));
        if (!path.isEmpty())
            emit requested(path);
    });
    if (!m_candidates.isEmpty()) {
        m_menu->addSection(tr("Runs of this session"));
        for (const QString& path : std::as_const(m_candidates)) {
            QAction* pick = m_menu->addAction(QFileInfo(path).fileName(), this, [this, path] { emit requested(path); });
            pick->setCheckable(true);
            pick->setChecked(m_baseline && m_baseline->path == path);
        }
    }
    m_menu->addSeparator();
    QAction* none = m_menu->addAction(tr("&No baseline"), this, [this] { emit requested({}); });
    none->setEnabled(m_baseline != nullptr);
    m_button->setText(m_baseline ? tr("Basel&ine: %1").arg(QFileInfo(m_baseline->path).fileName()) : tr("Basel&ine"));
}

void LiveBaselineOverlay::drawArms()
{
    for (TimeSeriesPlot* chart : *m_charts)
        chart->removeSeries(QStringLiteral("~base/"));
    for (int i = 0; i < int(m_armStarts.size()); ++i)
        drawArm(i);
}

void LiveBaselineOverlay::drawArm(int index)
{
    if (!m_baseline)
        return;
    const ArmStart& start = m_armStarts[std::size_t(index)];
    if (index > 0) { // the previous arm's baseline ends where this arm begins
        const QString previous = QStringLiteral("~base/%1/").arg(index - 1);
        for (TimeSeriesPlot* chart : *m_charts)
            for (const QString& key : chart->seriesKeys())
                if (key.startsWith(previous))
                    chart->truncateSeries(key, start.offset);
    }
    const Baseline::Arm* arm = m_baseline->match(start.run, index);
    if (!arm)
        return;
    QColor faded = m_colorOf(start.run);
    faded.setAlphaF(0.45);
    const QString prefix = QStringLiteral("~base/%1/").arg(index);
    const QString name = tr("baseline %1").arg(arm->run);
    auto series = [&](LiveChart chart, const QString& key, const QString& label, const QPen& pen, bool right = false) {
        TimeSeriesPlot* plot = this->chart(chart);
        plot->ensureSeries(prefix + key, name + QLatin1Char(' ') + label, pen, right);
        plot->setSeriesBehind(prefix + key);
        return plot;
    };
    for (const RunSnapshot& s : arm->snapshots) {
        const double x = start.offset + s.atS;
        for (const auto& [chart, window, cumulative] : { std::tuple { LiveChart::Ttft, &s.ttftWindowMs, &s.ttftMs },
                 std::tuple { LiveChart::Tpot, &s.tpotWindowMs, &s.tpotMs },
                 std::tuple { LiveChart::Itl, &s.itlWindowMs, &s.itlMs } }) {
            for (int i = 0; i < 3; ++i) {
                const QLatin1String p(kPercentiles[i].name);
                const QPen pen(faded, std::max(1.0, kPercentiles[i].width - 0.4), kPercentiles[i].pen);
                for (const auto& [suffix, summary] :
                    { std::pair { QStringLiteral("w"), window }, std::pair { QStringLiteral("c"), cumulative } }) {
                    const QString key = QStringLiteral("%1/%2/%3").arg(liveChartName(chart), p, suffix);
                    if (summary->count == 0) { // a gap, as the live line has one (LivePage::addPercentiles)
                        this->chart(chart)->append(prefix + key, x, qQNaN());
                        continue;
                    }
                    series(chart, key, p, pen)->append(prefix + key, x, percentileOf(*summary, i));
                }
            }
        }
        series(LiveChart::Throughput, QStringLiteral("req"), tr("req/s"), QPen(faded, 1.6))
            ->append(prefix + QStringLiteral("req"), x, s.windowReqPerS);
        series(LiveChart::Throughput, QStringLiteral("tok"), tr("tok/s"), QPen(faded, 1, Qt::DashDotLine), true)
            ->append(prefix + QStringLiteral("tok"), x, s.windowOutTokPerS);
        if (s.serverRunning >= 0)
            series(LiveChart::Server, QStringLiteral("running"), tr("running"), QPen(faded, 1.6))
                ->append(prefix + QStringLiteral("running"), x, s.serverRunning);
        if (s.serverWaiting >= 0)
            series(LiveChart::Server, QStringLiteral("waiting"), tr("waiting"), QPen(faded, 1.2, Qt::DashLine))
                ->append(prefix + QStringLiteral("waiting"), x, s.serverWaiting);
    }
    emit seriesAdded();
}

int LiveBaselineOverlay::armStartOf(const QString& run) const
{
    const QString armRun = RunId::parse(run).unsegmented(); // a steered segment: its arm
    for (int i = 0; i < int(m_armStarts.size()); ++i)
        if (m_armStarts[std::size_t(i)].run == armRun)
            return i;
    return -1;
}

namespace {

QString ratioText(double liveTtft, double baseTtft, double liveTpot, double baseTpot)
{
    auto ratio = [](double live, double baseline) {
        return baseline > 0 && live >= 0 ? QStringLiteral("%1×").arg(live / baseline, 0, 'f', 2) : QStringLiteral("–");
    };
    return LiveBaselineOverlay::tr("TTFT %1  TPOT %2").arg(ratio(liveTtft, baseTtft), ratio(liveTpot, baseTpot));
}

QString ratioValues(double liveTtft, double baseTtft, double liveTpot, double baseTpot)
{
    return LiveBaselineOverlay::tr("TTFT %1 / %2 ms, TPOT %3 / %4 ms")
        .arg(liveTtft, 0, 'f', 1)
        .arg(baseTtft, 0, 'f', 1)
        .arg(liveTpot, 0, 'f', 2)
        .arg(baseTpot, 0, 'f', 2);
}

} // namespace

void LiveBaselineOverlay::updateRatio(const QString& run, const RunSnapshot& s)
{
    if (!m_baseline || s.ttftMs.count == 0 || m_finishedRuns.contains(run))
        return;
    const int index = armStartOf(run);
    const Baseline::Arm* arm = index >= 0 ? m_baseline->match(m_armStarts[std::size_t(index)].run, index) : nullptr;
    const RunSnapshot* base = arm ? m_baseline->finalFor(run, index) : nullptr;
    if (!base)
        return;
    m_runs->updateBaselineRatio(run, ratioText(s.ttftMs.p50, base->ttftMs.p50, s.tpotMs.p50, base->tpotMs.p50),
        tr("p50 since this run began over the baseline's at its end (%1 in %2): %3")
            .arg(m_baseline->finals.contains(run) ? run : arm->run, QFileInfo(m_baseline->path).fileName(),
                ratioValues(s.ttftMs.p50, base->ttftMs.p50, s.tpotMs.p50, base->tpotMs.p50)));
}

void LiveBaselineOverlay::updateRatioAtEnd(const QString& run, const RunSummary& summary)
{
    if (!m_baseline)
        return;
    const int index = armStartOf(run);
    const Baseline::Arm* arm = index >= 0 ? m_baseline->match(m_armStarts[std::size_t(index)].run, index) : nullptr;
    if (!arm)
        return;
    // A steered segment against the same segment, else against the arm's first run.
    const QString baseRun = m_baseline->summaries.contains(run) ? run : arm->run;
    const auto base = m_baseline->summaries.constFind(baseRun);
    const Baseline::SummaryP50 live = Baseline::p50Of(summary);
    if (base == m_baseline->summaries.cend() || live.ttft < 0 || base->ttft <= 0)
        return;
    m_runs->updateBaselineRatio(run, ratioText(live.ttft, base->ttft, live.tpot, base->tpot),
        tr("Exact p50 from the summaries, as compare gives them (%1 in %2): %3")
            .arg(baseRun, QFileInfo(m_baseline->path).fileName(),
                ratioValues(live.ttft, base->ttft, live.tpot, base->tpot)));
}

} // namespace ks
