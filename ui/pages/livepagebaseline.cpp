// The Live page's baseline: a saved run drawn faded under the
// charts, arm by arm, and the live/baseline ratios in the run table.
#include "livepage.h"

#include "charts/chartstyle.h"
#include "charts/timeseriesplot.h"
#include "models/runlistmodel.h"
#include "store/runid.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QToolButton>

#include <tuple>

namespace ks {

void LivePage::setBaseline(std::shared_ptr<const Baseline> baseline)
{
    m_baseline = std::move(baseline);
    drawBaselineArms();
    m_runs->clearBaselineRatios();
    for (auto it = m_lastSnapshots.cbegin(); it != m_lastSnapshots.cend(); ++it)
        updateBaselineRatio(it.key(), it.value()); // runs still going
    for (auto it = m_finishedRuns.cbegin(); it != m_finishedRuns.cend(); ++it)
        updateBaselineRatioAtEnd(it.key(), it.value());
    updateLegend();
    rebuildBaselineMenu();
}

void LivePage::addBaselineCandidate(const QString& path)
{
    m_baselineCandidates.removeAll(path);
    m_baselineCandidates.prepend(path);
    while (m_baselineCandidates.size() > 8)
        m_baselineCandidates.removeLast();
    rebuildBaselineMenu();
}

void LivePage::rebuildBaselineMenu()
{
    m_baselineMenu->clear();
    m_baselineMenu->addAction(tr("&Open run file…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Baseline run file"), QString(), tr("Run files (*.jsonl);;All files (*)"));
        if (!path.isEmpty())
            emit baselineRequested(path);
    });
    if (!m_baselineCandidates.isEmpty()) {
        m_baselineMenu->addSection(tr("Runs of this session"));
        for (const QString& path : std::as_const(m_baselineCandidates)) {
            QAction* pick = m_baselineMenu->addAction(
                QFileInfo(path).fileName(), this, [this, path] { emit baselineRequested(path); });
            pick->setCheckable(true);
            pick->setChecked(m_baseline && m_baseline->path == path);
        }
    }
    m_baselineMenu->addSeparator();
    QAction* none = m_baselineMenu->addAction(tr("&No baseline"), this, [this] { emit baselineRequested({}); });
    none->setEnabled(m_baseline != nullptr);
    m_baselineButton->setText(
        m_baseline ? tr("Basel&ine: %1").arg(QFileInfo(m_baseline->path).fileName()) : tr("Basel&ine"));
}

void LivePage::drawBaselineArms()
{
    for (TimeSeriesPlot* chart : std::as_const(m_charts))
        chart->removeSeries(QStringLiteral("~base/"));
    for (int i = 0; i < int(m_armStarts.size()); ++i)
        drawBaselineArm(i);
}

void LivePage::drawBaselineArm(int index)
{
    if (!m_baseline)
        return;
    const ArmStart& start = m_armStarts[std::size_t(index)];
    if (index > 0) { // the previous arm's baseline ends where this arm begins
        const QString previous = QStringLiteral("~base/%1/").arg(index - 1);
        for (TimeSeriesPlot* chart : std::as_const(m_charts))
            for (const QString& key : chart->seriesKeys())
                if (key.startsWith(previous))
                    chart->truncateSeries(key, start.offset);
    }
    const Baseline::Arm* arm = m_baseline->match(start.run, index);
    if (!arm)
        return;
    QColor faded = colorOf(configOfRun(start.run));
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
    applySeriesVisibility();
}

int LivePage::armStartOf(const QString& run) const
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
    return LivePage::tr("TTFT %1  TPOT %2").arg(ratio(liveTtft, baseTtft), ratio(liveTpot, baseTpot));
}

QString ratioValues(double liveTtft, double baseTtft, double liveTpot, double baseTpot)
{
    return LivePage::tr("TTFT %1 / %2 ms, TPOT %3 / %4 ms")
        .arg(liveTtft, 0, 'f', 1)
        .arg(baseTtft, 0, 'f', 1)
        .arg(liveTpot, 0, 'f', 2)
        .arg(baseTpot, 0, 'f', 2);
}

} // namespace

void LivePage::updateBaselineRatio(const QString& run, const RunSnapshot& s)
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

void LivePage::updateBaselineRatioAtEnd(const QString& run, const RunSummary& summary)
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
