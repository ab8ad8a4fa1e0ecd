#pragma once

#include "feeds/baseline.h"
#include "livechart.h"
#include "metrics/aggregator.h"
#include "steerbox.h"
#include "store/summaryline.h"

#include <QHash>
#include <QSet>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QScrollArea;
class QPushButton;
class QLabel;
class QTableView;

namespace ks {

class KneePlot;
class LiveBaselineOverlay;
class RoundsPanel;
struct RoundDecision;
class KnobPlot;
class LiveSearchPanel;
struct LoadedRunFile;
class RunListModel;
class TimeSeriesPlot;

/// The Live page: every statistic of the current experiment over experiment
/// time, one colour per configuration, percentiles by line style, arm
/// boundaries marked, and the runs with their progress below. It is fed value
/// snapshots (live or replayed alike) and replots on its own 10 Hz timer.
class LivePage : public QWidget {
    Q_OBJECT
public:
    explicit LivePage(QWidget* parent = nullptr);

    void clear();
    void runStarted(const QString& run);
    void addSnapshot(const QString& run, const RunSnapshot& snapshot);
    void progressed(const QString& run, int done, int expected);
    void runFinished(const QString& run, const RunSummary& summary);
    /// A round of repeats that run until decided: a row of the Rounds table.
    void addRoundDecision(const RoundDecision& decision);
    RoundsPanel* rounds() const { return m_rounds; }
    /// The steering control (Live page, "Steer"): enabled for a running plain
    /// concurrency or rate arm at its current setting, else disabled saying why.
    void setSteerable(bool steerable, SteerBox::Kind kind, double value, const QString& why = {});
    SteerBox* steerBox() const { return m_steerBox; }
    /// Draws `baseline` faded under the charts, each of its arms aligned at the
    /// start of the live arm it matches (Baseline::match), and adds the live/baseline
    /// ratio to the run table; nullptr removes it.
    void setBaseline(std::shared_ptr<const Baseline> baseline);
    const Baseline* baseline() const;
    /// A run file of this session the Baseline menu offers.
    void addBaselineCandidate(const QString& path);
    void setCumulative(bool cumulative);
    bool isCumulative() const { return m_cumulative; }
    void resetZoom();

    /// Chart access for tests and export.
    TimeSeriesPlot* chart(LiveChart which) const { return m_charts[std::size_t(which)]; }
    /// The knee of the current sweep arm; hidden until a sweep step finishes.
    KneePlot* knee() const { return m_knee; }
    /// TTFT p99 against the first knob that varies across configurations, one
    /// point per finished arm, from the comparison of the experiment so far;
    /// hidden while no knob varies (showKnobRange).
    KnobPlot* knobChart() const { return m_knob; }
    /// The heatmap of a search over several knobs, shown when the experiment is one.
    LiveSearchPanel* searchPanel() const { return m_searchPanel; }
    void showKnobRange(const LoadedRunFile& soFar);
    /// Scrolls the charts to the search heatmap, else the knob chart, when one shows (--shot live-knob:...).
    void revealKnobChart();
    /// The x of a snapshot of `run` taken `atS` seconds into that run.
    double xOf(const QString& run, double atS) const { return m_offsets.value(run) + atS; }
    RunListModel* runs() const { return m_runs; }

signals:
    void cumulativeToggled(bool cumulative);
    /// The user asked the running arm to go on at `concurrency` streams.
    void steerRequested(int concurrency);
    /// The user asked the running rate arm to go on at `rate` requests per second.
    void rateSteerRequested(double rate);
    /// The user picked a baseline file (empty: no baseline).
    void baselineRequested(const QString& path);

private:
    QColor colorOf(const QString& config);
    void addGpuGauges(const QString& config, const GpuGauges& gauges, double x);
    void addPercentiles(
        LiveChart chart, const QString& config, const QString& suffix, const PercentileSummary& s, double x);
    void updateLegend();
    void addKneePoint(const RunSummary& summary);
    void applySeriesVisibility();

    std::array<TimeSeriesPlot*, kLiveCharts.size()> m_charts {}; ///< by LiveChart
    QHash<QString, double> m_offsets; ///< run -> experiment time at its start
    QHash<QString, int> m_labelRows; ///< run -> stagger row of its boundary label
    QString m_lastFamily; ///< CONFIG/ARM of the latest run, without sweep step or repeat
    QString m_lastLabelledRun;
    QSet<QString> m_labelledRuns; ///< runs whose boundary carries their name (the first of each arm)
    QHash<QString, QColor> m_colors; ///< configuration -> colour, in first-seen order
    QHash<QString, QString> m_specFigures; ///< configuration -> its speculative-decoding figures, for the legend
    QStringList m_configs;
    double m_nextOffset = 0;
    bool m_cumulative = false;
    KneePlot* m_knee;
    KnobPlot* m_knob;
    LiveSearchPanel* m_searchPanel;
    QScrollArea* m_chartScroll = nullptr;
    QLabel* m_legend;
    QCheckBox* m_cumulativeBox;
    SteerBox* m_steerBox;
    LiveBaselineOverlay* m_baseline;
    QSet<QString> m_pendingSegments;
    QHash<QString, int> m_segmentsDrawn; ///< arm run -> steered segments marked so far ///< steered segments whose
                                         ///< boundary waits for their first point
    RunListModel* m_runs;
    QTableView* m_runTable;
    RoundsPanel* m_rounds;
    QTimer m_replotTimer;
};

/// The run label's configuration part ("mns32/stress" -> "mns32").
QString configOfRun(const QString& run);

} // namespace ks
