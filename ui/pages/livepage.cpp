#include "livepage.h"

#include "charts/chartstyle.h"
#include "charts/kneeplot.h"
#include "charts/knobplot.h"
#include "charts/timeseriesplot.h"
#include "feeds/runfileloader.h"
#include "livebaselineoverlay.h"
#include "metrics/sweepcapacity.h"
#include "models/runlistmodel.h"
#include "pages/livesearchpanel.h"
#include "progressdelegate.h"
#include "roundspanel.h"
#include "store/runid.h"

#include <QCheckBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

namespace ks {

QString configOfRun(const QString& run)
{
    // CONFIG/ARM...; an ad-hoc run is named by its label alone, and its steered segments LABEL~cN.
    return RunId::parse(run).configOrLabel();
}

LivePage::LivePage(QWidget* parent)
    : QWidget(parent)
    , m_knee(new KneePlot(this))
    , m_knob(new KnobPlot(this))
    , m_searchPanel(new LiveSearchPanel(this))
    , m_legend(new QLabel(this))
    , m_cumulativeBox(new QCheckBox(tr("&Cumulative"), this))
    , m_steerBox(new SteerBox(this))
    , m_runs(new RunListModel(this))
    , m_runTable(new QTableView(this))
    , m_rounds(new RoundsPanel(this))
{
    auto* top = new QHBoxLayout;
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    top->addWidget(m_legend, 1);
    m_cumulativeBox->setToolTip(tr("Latency percentiles since each run began, instead of over the last 10 s"));
    connect(m_cumulativeBox, &QCheckBox::toggled, this, [this](bool on) {
        setCumulative(on);
        emit cumulativeToggled(on);
    });
    top->addWidget(m_cumulativeBox);
    connect(m_steerBox, &SteerBox::concurrencyRequested, this, &LivePage::steerRequested);
    connect(m_steerBox, &SteerBox::rateRequested, this, &LivePage::rateSteerRequested);
    top->addWidget(m_steerBox);
    m_baseline = new LiveBaselineOverlay(
        &m_charts, m_runs, [this](const QString& run) { return colorOf(configOfRun(run)); }, this);
    connect(m_baseline, &LiveBaselineOverlay::requested, this, &LivePage::baselineRequested);
    connect(m_baseline, &LiveBaselineOverlay::seriesAdded, this, [this] { applySeriesVisibility(); });
    top->addWidget(m_baseline->button());
    auto* reset = new QPushButton(tr("Reset &zoom"), this);
    reset->setToolTip(tr("Show all data again (Ctrl+0; double-click a chart)"));
    connect(reset, &QPushButton::clicked, this, &LivePage::resetZoom);
    top->addWidget(reset);

    auto* grid = new QGridLayout;
    grid->setSpacing(4);
    const struct {
        LiveChart key;
        QString title;
        QString unit;
    } charts[] = {
        { LiveChart::Ttft, tr("Time to first token"), tr("ms") },
        { LiveChart::Tpot, tr("Time per output token"), tr("ms") },
        { LiveChart::Itl, tr("Inter-token latency"), tr("ms") },
        { LiveChart::Throughput, tr("Throughput (last 10 s)"), tr("requests/s") },
        { LiveChart::Server, tr("Server queue (scraped)"), tr("requests") },
        { LiveChart::Errors, tr("Errors by reason (cumulative)"), tr("requests") },
        { LiveChart::Gpu, tr("GPU (nvidia-smi)"), tr("util., memory (%)") },
        { LiveChart::Drift, tr("Drift: probes changed so far"), tr("probes") },
    };
    int i = 0;
    for (const auto& c : charts) {
        auto* chart = new TimeSeriesPlot(c.title, c.unit, this);
        m_charts[std::size_t(c.key)] = chart;
        if (i < 6)
            grid->addWidget(chart, i / 2, i % 2);
        else // GPU and drift span a row each; shown only once a GPU is sampled / the experiment probes
            grid->addWidget(chart, i - 3, 0, 1, 2);
        ++i;
    }
    chart(LiveChart::Gpu)->hide();
    chart(LiveChart::Drift)->hide();
    grid->addWidget(m_knee, 5, 0, 1, 2); // a row of its own once a sweep step has finished
    m_knee->setMinimumHeight(260);
    m_knee->hide();
    grid->addWidget(m_knob, 6, 0, 1, 2); // once the experiment has finished arms of two knob values
    grid->addWidget(m_searchPanel, 7, 0, 1, 2); // a search over several knobs, a probe at a time
    m_knob->setMinimumHeight(260);
    m_knob->hide();
    chart(LiveChart::Throughput)->setRightAxisLabel(tr("output tokens/s"));
    chart(LiveChart::Server)->setRightAxisLabel(tr("KV cache, acceptance (%)"));
    chart(LiveChart::Gpu)->setRightAxisLabel(tr("power (W)"));

    // The charts scroll once the GPU, drift and knee rows no longer fit (at
    // 1280x800), instead of making the window taller than the screen.
    auto* gridArea = new QWidget(this);
    gridArea->setLayout(grid);
    auto* scroll = new QScrollArea(this);
    m_chartScroll = scroll;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(gridArea);
    auto* chartsArea = new QWidget(this);
    auto* chartsLayout = new QVBoxLayout(chartsArea);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addLayout(top);
    chartsLayout->addWidget(scroll, 1);

    m_runTable->setModel(m_runs);
    m_runTable->setItemDelegateForColumn(RunListModel::ProgressColumn, new ProgressDelegate(m_runTable));
    m_runTable->horizontalHeader()->setSectionResizeMode(RunListModel::StatusColumn, QHeaderView::Stretch);
    m_runTable->horizontalHeader()->resizeSection(RunListModel::RunColumn, 170);
    m_runTable->horizontalHeader()->resizeSection(RunListModel::ProgressColumn, 150);
    m_runTable->horizontalHeader()->resizeSection(RunListModel::BaselineColumn, 190);
    m_runTable->verticalHeader()->hide();
    m_runTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_runTable->setEditTriggers(QAbstractItemView::NoEditTriggers);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(chartsArea);
    splitter->addWidget(m_runTable);
    splitter->addWidget(m_rounds); // hidden until a round is judged
    splitter->setStretchFactor(0, 5);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    m_replotTimer.setInterval(100); // charts redraw at most 10 times a second, however much data arrives
    connect(&m_replotTimer, &QTimer::timeout, this, [this] {
        for (TimeSeriesPlot* chart : std::as_const(m_charts))
            chart->replot();
        if (m_knee->isVisible())
            m_knee->replot();
        if (m_knob->isVisible())
            m_knob->replot();
    });
    m_replotTimer.start();
    updateLegend();
}

void LivePage::clear()
{
    for (TimeSeriesPlot* chart : std::as_const(m_charts))
        chart->clear();
    chart(LiveChart::Throughput)->setRightAxisLabel(tr("output tokens/s"));
    chart(LiveChart::Server)->setRightAxisLabel(tr("KV cache, acceptance (%)"));
    chart(LiveChart::Gpu)->setRightAxisLabel(tr("power (W)"));
    m_offsets.clear();
    m_labelRows.clear();
    m_lastFamily.clear();
    m_lastLabelledRun.clear();
    m_labelledRuns.clear();
    m_pendingSegments.clear();
    m_segmentsDrawn.clear();
    m_baseline->clearRuns(); // the baseline stays: it is drawn again as the next run's arms start
    m_colors.clear();
    m_configs.clear();
    m_specFigures.clear();
    m_nextOffset = 0;
    m_runs->clear();
    chart(LiveChart::Gpu)->hide();
    chart(LiveChart::Drift)->hide();
    m_knee->reset(QString(), true, {});
    m_knee->hide();
    m_knob->hide();
    m_searchPanel->clear();
    m_rounds->clear();
    updateLegend();
}

void LivePage::setBaseline(std::shared_ptr<const Baseline> baseline)
{
    m_baseline->setBaseline(std::move(baseline));
    updateLegend();
}

const Baseline* LivePage::baseline() const
{
    return m_baseline->baseline();
}

void LivePage::addBaselineCandidate(const QString& path)
{
    m_baseline->addCandidate(path);
}

void LivePage::addRoundDecision(const RoundDecision& decision)
{
    m_rounds->addDecision(decision);
}

QColor LivePage::colorOf(const QString& config)
{
    if (!m_colors.contains(config)) {
        m_colors.insert(config, configColor(int(m_configs.size())));
        m_configs << config;
        updateLegend();
    }
    return m_colors.value(config);
}

void LivePage::updateLegend()
{
    QString html;
    for (const QString& config : std::as_const(m_configs))
        html += QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp; ")
                    .arg(m_colors.value(config).name(),
                        config.toHtmlEscaped()
                            + (m_specFigures.contains(config)
                                    ? QStringLiteral(" (%1)").arg(m_specFigures.value(config).toHtmlEscaped())
                                    : QString()));
    if (m_configs.isEmpty())
        html = tr("No run yet: press Run (Ctrl+R). ");
    if (m_baseline->baseline())
        html += tr("<span style='color:gray'>&#9632;</span>&nbsp;faded:&nbsp;baseline&nbsp;&nbsp; ");
    html += tr("&nbsp;&nbsp;<b>━</b> p50 &nbsp;<b>╍</b> p95 &nbsp;<b>┈</b> p99 &nbsp;(%1)")
                .arg(m_cumulative ? tr("cumulative") : tr("last 10 s"));
    m_legend->setText(html);
}

void LivePage::runStarted(const QString& run)
{
    if (m_offsets.contains(run))
        return;
    m_offsets.insert(run, m_nextOffset);
    const QColor color = colorOf(configOfRun(run));
    // The colour already says which configuration; an ad-hoc run has no arm part.
    const RunId id = RunId::parse(run);
    const QString arm = id.withoutConfig();
    // Sweep steps (ARM@VALUE) and repeats (ARM#N) of one arm share its label:
    // only the first is named, so a many-step sweep does not stack its labels.
    const QString base = id.arm;
    const QString family = configOfRun(run) + QLatin1Char('/') + base;
    const bool continues = family == m_lastFamily && arm != base;
    if (continues && id.isSegment()) {
        // A steered segment shares its arm's clock: same offset, a marker at its first point.
        m_offsets.insert(run, m_offsets.value(m_lastLabelledRun));
        m_labelRows.insert(run, m_labelRows.value(m_lastLabelledRun));
        m_pendingSegments.insert(run);
        m_runs->runStarted(run);
        return;
    }
    m_lastFamily = family;
    // Consecutive arm labels take turns over three rows, so two short arms never write over each other.
    const int row = continues ? m_labelRows.value(m_lastLabelledRun) : int(m_labelledRuns.size()) % 3;
    if (!continues) {
        m_lastLabelledRun = run;
        m_labelledRuns.insert(run);
    }
    m_labelRows.insert(run, row);
    // A sweep is named once, by its arm: its steps follow as unlabelled marks.
    const QString label = arm.isEmpty() ? run : id.isSweepStep() ? tr("%1 (sweep)").arg(base) : arm;
    for (TimeSeriesPlot* chart : std::as_const(m_charts))
        chart->addBoundary(m_nextOffset, continues ? QString() : label, color, row);
    m_runs->runStarted(run);
    m_baseline->armStarted(run, m_nextOffset);
}

void LivePage::addPercentiles(
    LiveChart chart, const QString& config, const QString& suffix, const PercentileSummary& s, double x)
{
    TimeSeriesPlot* plot = this->chart(chart);
    if (s.count == 0) { // no completions in the window: a gap in the line, neither a zero nor a slope across it
        for (int i = 0; i < 3; ++i)
            plot->append(
                QStringLiteral("%1/%2/%3").arg(config, QLatin1String(kPercentiles[i].name), suffix), x, qQNaN());
        return;
    }
    const QColor color = colorOf(config);
    for (int i = 0; i < 3; ++i) {
        const QString key = QStringLiteral("%1/%2/%3").arg(config, QLatin1String(kPercentiles[i].name), suffix);
        plot->ensureSeries(key, QStringLiteral("%1 %2").arg(config, QLatin1String(kPercentiles[i].name)),
            QPen(color, kPercentiles[i].width, kPercentiles[i].pen));
        plot->append(key, x, percentileOf(s, i));
    }
}

void LivePage::addGpuGauges(const QString& config, const GpuGauges& g, double x)
{
    if (g.count == 0)
        return;
    TimeSeriesPlot* gpu = chart(LiveChart::Gpu);
    gpu->show();
    const QColor color = colorOf(config);
    const QString gpus = g.count > 1 ? tr(" (%1 GPUs)").arg(g.count) : QString();
    if (g.utilPct >= 0) {
        gpu->ensureSeries(config + QStringLiteral("/util"), config + tr(" utilization") + gpus, QPen(color, 2));
        gpu->append(config + QStringLiteral("/util"), x, g.utilPct);
    }
    if (g.memUsedMib >= 0 && g.memTotalMib > 0) {
        gpu->ensureSeries(config + QStringLiteral("/mem"), config + tr(" memory used"), QPen(color, 1.6, Qt::DashLine));
        gpu->append(config + QStringLiteral("/mem"), x, 100.0 * g.memUsedMib / g.memTotalMib);
    }
    if (g.powerW >= 0) {
        gpu->ensureSeries(config + QStringLiteral("/power"), config + tr(" power"), QPen(color, 1, Qt::DotLine), true);
        gpu->append(config + QStringLiteral("/power"), x, g.powerW);
    }
}

void LivePage::addSnapshot(const QString& run, const RunSnapshot& s)
{
    runStarted(run);
    const QString config = configOfRun(run);
    const QColor color = colorOf(config);
    const double x = xOf(run, s.atS);
    m_nextOffset = std::max(m_nextOffset, x + 1.0);
    if (m_pendingSegments.remove(run)) {
        const RunId id = RunId::parse(run);
        const QString label = QStringLiteral("→ ") + id.segment;
        // Below the arm's own label, alternating between the two other rows: a steer soon after the
        // arm began, or soon after another steer, does not write over the label before it.
        const int segment = m_segmentsDrawn[id.unsegmented()]++;
        const int row = (m_labelRows.value(run) + 1 + segment % 2) % 3;
        for (TimeSeriesPlot* chart : std::as_const(m_charts))
            chart->addBoundary(x, label, color, row);
    }

    addPercentiles(LiveChart::Ttft, config, QStringLiteral("w"), s.ttftWindowMs, x);
    addPercentiles(LiveChart::Ttft, config, QStringLiteral("c"), s.ttftMs, x);
    addPercentiles(LiveChart::Tpot, config, QStringLiteral("w"), s.tpotWindowMs, x);
    addPercentiles(LiveChart::Tpot, config, QStringLiteral("c"), s.tpotMs, x);
    addPercentiles(LiveChart::Itl, config, QStringLiteral("w"), s.itlWindowMs, x);
    addPercentiles(LiveChart::Itl, config, QStringLiteral("c"), s.itlMs, x);

    TimeSeriesPlot* throughput = chart(LiveChart::Throughput);
    throughput->ensureSeries(config + QStringLiteral("/req"), config + tr(" req/s"), QPen(color, 2));
    throughput->ensureSeries(
        config + QStringLiteral("/tok"), config + tr(" tok/s"), QPen(color, 1.2, Qt::DashDotLine), true);
    throughput->append(config + QStringLiteral("/req"), x, s.windowReqPerS);
    throughput->append(config + QStringLiteral("/tok"), x, s.windowOutTokPerS);

    TimeSeriesPlot* server = chart(LiveChart::Server);
    if (s.serverRunning >= 0) {
        server->ensureSeries(config + QStringLiteral("/running"), config + tr(" running"), QPen(color, 2));
        server->append(config + QStringLiteral("/running"), x, s.serverRunning);
    }
    if (s.serverWaiting >= 0) {
        server->ensureSeries(
            config + QStringLiteral("/waiting"), config + tr(" waiting"), QPen(color, 1.6, Qt::DashLine));
        server->append(config + QStringLiteral("/waiting"), x, s.serverWaiting);
    }
    if (s.kvCacheUsage >= 0) {
        server->ensureSeries(config + QStringLiteral("/kv"), config + tr(" KV %"), QPen(color, 1, Qt::DotLine), true);
        server->append(config + QStringLiteral("/kv"), x, s.kvCacheUsage * 100.0);
    }
    if (s.specAcceptance >= 0) { // speculative decoding: accepted over drafted tokens so far
        server->ensureSeries(config + QStringLiteral("/spec"), config + tr(" spec acceptance %"),
            QPen(color, 1.4, Qt::DashDotLine), true);
        server->append(config + QStringLiteral("/spec"), x, s.specAcceptance * 100.0);
    }
    if (s.specMeanAccepted >= 0) { // the legend names it, redrawn only when the figure changes
        const QString figures = s.specAcceptance >= 0
            ? tr("spec %1 %, %2 tok/step").arg(s.specAcceptance * 100, 0, 'f', 0).arg(s.specMeanAccepted, 0, 'f', 2)
            : tr("spec %1 tok/step").arg(s.specMeanAccepted, 0, 'f', 2);
        if (std::exchange(m_specFigures[config], figures) != figures)
            updateLegend();
    }

    addGpuGauges(config, s.gpu, x);

    TimeSeriesPlot* errors = chart(LiveChart::Errors);
    int reasonIndex = 0;
    for (auto it = s.errorsByReason.begin(); it != s.errorsByReason.end(); ++it, ++reasonIndex) {
        const QString key = config + QLatin1Char('/') + it.key();
        errors->ensureSeries(key, config + QLatin1Char(' ') + it.key(),
            QPen(color, 1.6, reasonIndex % 2 ? Qt::DashLine : Qt::SolidLine));
        errors->append(key, x, it.value());
    }

    if (s.driftMismatches >= 0) {
        TimeSeriesPlot* drift = chart(LiveChart::Drift);
        drift->show();
        drift->ensureSeries(
            QStringLiteral("mismatches"), tr("changed probes"), QPen(palette().color(QPalette::Text), 2));
        drift->append(QStringLiteral("mismatches"), x, s.driftMismatches);
    }
    if (s.ttftMs.count > 0)
        m_runs->updateTtft(run, s.ttftMs.p50);
    m_baseline->snapshotAdded(run, s);
    applySeriesVisibility();
}

void LivePage::progressed(const QString& run, int done, int expected)
{
    m_runs->progressed(run, done, expected);
}

void LivePage::runFinished(const QString& run, const RunSummary& summary)
{
    m_runs->runFinished(run, summary);
    const int row = m_labelRows.value(run);
    // Only at an arm's labelled start: the notes of a sweep's many short steps would stack into a band
    // (the runs table gives every step's warning).
    if (summary.gentle.value_or(false) && m_labelledRuns.contains(run))
        chart(LiveChart::Ttft)->addNote(m_offsets.value(run), tr("gentle"), row);
    if (summary.status == QLatin1String("server_exited"))
        chart(LiveChart::Ttft)->addNote(m_offsets.value(run), tr("server exited"), row);
    addKneePoint(summary);
    m_baseline->runFinished(run, summary);
}

void LivePage::addKneePoint(const RunSummary& summary)
{
    const std::optional<SweepPoint> point = sweepPoint(summary);
    if (!point)
        return;
    const QString title
        = tr("Knee: %1 (sweep over %2)").arg(point->arm, point->overRate ? tr("rate") : tr("concurrency"));
    if (m_knee->arm() != title) // a new sweep arm starts its own chart
        m_knee->reset(title, point->overRate, summarySlo(summary));
    m_knee->addPoint(*point, colorOf(point->config));
    m_knee->show();
}

void LivePage::setSteerable(bool steerable, SteerBox::Kind kind, double value, const QString& why)
{
    m_steerBox->setSteerable(steerable, kind, value, why);
}

void LivePage::setCumulative(bool cumulative)
{
    m_cumulative = cumulative;
    if (m_cumulativeBox->isChecked() != cumulative)
        m_cumulativeBox->setChecked(cumulative);
    applySeriesVisibility();
    updateLegend();
    resetZoom();
}

void LivePage::applySeriesVisibility()
{
    const QString hidden = m_cumulative ? QStringLiteral("/w") : QStringLiteral("/c");
    for (LiveChart latency : { LiveChart::Ttft, LiveChart::Tpot, LiveChart::Itl }) {
        TimeSeriesPlot* chart = this->chart(latency);
        for (const QString& key : chart->seriesKeys())
            chart->setSeriesVisible(key, !key.endsWith(hidden));
    }
}

void LivePage::resetZoom()
{
    for (TimeSeriesPlot* chart : std::as_const(m_charts))
        chart->resetZoom();
}

void LivePage::showKnobRange(const LoadedRunFile& soFar)
{
    // The comparison of the experiment so far, recomputed by the loader as each arm finishes.
    const KnobResponse& response = soFar.liveKnob; // computed with the comparison, off this thread
    if (response.knob.isEmpty() || response.series.empty()) {
        m_knob->hide(); // no knob varies yet among the finished arms
        return;
    }
    const QString name = soFar.file ? soFar.file->experimentName(tr("experiment")) : tr("experiment");
    m_knob->setResponse(
        tr("%1 · %2 against %3 (each finished arm)").arg(name, response.metricTitle, response.knob), response);
    m_knob->show();
}

void LivePage::revealKnobChart()
{
    // A search over several knobs draws its heatmap below the knob chart: that is the one to show.
    if (m_searchPanel->isVisible())
        m_chartScroll->ensureWidgetVisible(m_searchPanel, 0, 0);
    else if (m_knob->isVisible())
        m_chartScroll->ensureWidgetVisible(m_knob, 0, 0);
}

} // namespace ks
