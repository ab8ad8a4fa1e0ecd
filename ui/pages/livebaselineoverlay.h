#pragma once

#include "feeds/baseline.h"
#include "livechart.h"

#include <QColor>
#include <QHash>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QMenu;
class QToolButton;
class QWidget;

namespace ks {

class RunListModel;
class TimeSeriesPlot;

/// The Live page's baseline: a saved run drawn faded under the page's charts,
/// each of its arms aligned at the start of the live arm it matches
/// (Baseline::match), the live/baseline ratios in the run table, and the
/// Baseline button whose menu picks one. The page tells it when arms start,
/// snapshot and finish; it draws into the charts the page owns.
class LiveBaselineOverlay : public QObject {
    Q_OBJECT
public:
    using Charts = std::array<TimeSeriesPlot*, kLiveCharts.size()>;
    /// `charts` are the page's (filled in by the time an arm starts); `colorOf` gives a run's configuration colour.
    LiveBaselineOverlay(
        const Charts* charts, RunListModel* runs, std::function<QColor(const QString& run)> colorOf, QWidget* page);

    /// The Baseline button for the page's tool row.
    QToolButton* button() const { return m_button; }
    /// Draws `baseline` under every arm so far and under each that starts later; nullptr removes it.
    void setBaseline(std::shared_ptr<const Baseline> baseline);
    const Baseline* baseline() const { return m_baseline.get(); }
    /// A run file of this session the menu offers (the newest 8).
    void addCandidate(const QString& path);

    /// A live arm (not a steered segment) began at experiment time `offset`.
    void armStarted(const QString& run, double offset);
    void snapshotAdded(const QString& run, const RunSnapshot& snapshot);
    void runFinished(const QString& run, const RunSummary& summary);
    /// Forgets the experiment's runs; the baseline stays, drawn again as the next run's arms start.
    void clearRuns();

signals:
    /// The user picked a baseline file (empty: no baseline).
    void requested(const QString& path);
    /// Series were added to the charts (the page applies its window/cumulative choice to them).
    void seriesAdded();

private:
    TimeSeriesPlot* chart(LiveChart which) const { return (*m_charts)[std::size_t(which)]; }
    void drawArms();
    void drawArm(int index);
    int armStartOf(const QString& run) const; ///< index in m_armStarts of the run's arm, -1 if none
    void updateRatio(const QString& run, const RunSnapshot& s);
    void updateRatioAtEnd(const QString& run, const RunSummary& summary);
    void rebuildMenu();

    const Charts* m_charts;
    RunListModel* m_runs;
    std::function<QColor(const QString&)> m_colorOf;
    QWidget* m_page;
    QToolButton* m_button;
    QMenu* m_menu;
    std::shared_ptr<const Baseline> m_baseline;
    QStringList m_candidates;
    struct ArmStart {
        QString run;
        double offset;
    };
    std::vector<ArmStart> m_armStarts; ///< live arms (not steered segments) in start order
    QHash<QString, RunSnapshot> m_lastSnapshots; ///< run -> its latest snapshot (ratios for a baseline picked later)
    QHash<QString, RunSummary> m_finishedRuns; ///< run -> its summary, once finished (exact ratios)
};

} // namespace ks
