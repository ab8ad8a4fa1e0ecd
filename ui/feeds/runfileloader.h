#pragma once

#include "compare/calibration.h"
#include "compare/comparisontypes.h"
#include "compare/knobresponse.h"
#include "drift/driftanalysis.h"
#include "library/cataloguepicks.h"
#include "store/runfile.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace ks {

struct CalibrationLookup;

/// A run file read into memory with what the Compare and Drift pages show:
/// the core's compareRuns() and analyzeDrift() results. Immutable once built,
/// so pages share it without copies.
struct LoadedRunFile {
    QString path; ///< the first file
    QString otherPath; ///< the second file when two are compared, else empty
    QString picks; ///< "@12 @34" when compared from the run library (loadPicks), else empty
    std::shared_ptr<const RunFile> file; ///< shared by every result of one load (two files: merged)
    Comparison comparison; ///< compareRuns() for `baseline`
    bool intervals = false; ///< compare has bootstrap intervals (they follow the first result)
    QString baseline;
    DriftReport drift;
    bool hasProbes = false;
    bool live = false; ///< the experiment running now, as far as it got (showLive)
    /// Live only: TTFT p99 against the first knob that varies among the finished
    /// configurations (computed here, on the worker, for the Live page's chart);
    /// empty knob when none varies yet.
    KnobResponse liveKnob;
    /// The A/A calibration the comparison used (compare/calibrationlookup.h), null when none.
    std::shared_ptr<const Calibration> calibration;
    QString calibrationNote; ///< the spec names a calibration that is not there
    QString error;
};

/// Loads run files off the GUI thread (latest wins: a newer request replaces one still loading). The first
/// result carries ratios without intervals, so a large file shows its
/// comparison quickly; a second result adds the 95 % intervals.
class RunFileLoader : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~RunFileLoader() override;

    /// `withIntervals` false: stop after the first result (no bootstrap), for charts only.
    void load(const QString& path, const QString& baseline = {}, bool withIntervals = true)
    {
        load(QStringList { path }, baseline, withIntervals);
    }
    /// Two files: compared as one (configurations labelled "LABEL @FILE"), drift across both.
    void load(const QStringList& paths, const QString& baseline = {}, bool withIntervals = true);
    /// Configuration-arms picked from the run library (any files), compared as
    /// one file with each labelled "CONFIG @ID"; the first pick is the baseline.
    void loadPicks(const std::vector<CataloguePick>& picks);
    /// Compares the experiment running now, as far as it got, against the
    /// current baseline; `path` names its file. The runs are shared, not
    /// copied: the run file is put together on the worker thread, so the GUI
    /// thread's part of an arm's end does not grow with the arms before it.
    void showLive(std::shared_ptr<const nlohmann::json> experiment, std::vector<std::shared_ptr<const RunData>> runs,
        const QString& path);
    /// Recomputes the comparison of the current file against another baseline.
    void setBaseline(const QString& baseline);
    /// Compares arms whose configurations ran different workloads (marked) instead
    /// of refusing them, and recomputes the current file's comparison.
    void setAllowDifferentWorkloads(bool allow);
    bool allowDifferentWorkloads() const { return m_allowDifferentWorkloads; }
    /// The A/A calibration file for the next loads (`export --calibration`); empty:
    /// the one the experiment spec names, if any. A file that is no calibration is the load's error.
    void setCalibrationPath(const QString& path) { m_calibrationPath = path; }
    std::shared_ptr<const LoadedRunFile> current() const { return m_current; }

signals:
    void progress(int percent, const QString& what);
    void loaded(std::shared_ptr<const ks::LoadedRunFile> result);

private:
    void startJob(std::function<void()> job);
    void deliver(quint64 generation, std::shared_ptr<const LoadedRunFile> result);
    /// Keeps the calibration `lookup` found in `result`; false (and `result.error`) when it is unusable.
    static bool useCalibration(LoadedRunFile& result, const CalibrationLookup& lookup);
    /// In the worker: comparison and drift of `result->file`, delivered without
    /// intervals first, then (unless `withIntervals` is false) with them.
    void analyze(quint64 generation, std::shared_ptr<LoadedRunFile> result, std::vector<ProbePass> passes,
        const nlohmann::json& set, bool withIntervals, bool allowDifferentWorkloads);

    std::atomic<quint64> m_generation { 0 }; ///< worker threads read it to drop work nobody will see
    std::shared_ptr<const LoadedRunFile> m_current;
    std::vector<QThread*> m_threads;
    bool m_allowDifferentWorkloads = false;
    QString m_calibrationPath;
    /// Recomputes the current file's comparison with the present options.
    void recompare(const QString& baseline);
};

} // namespace ks

Q_DECLARE_METATYPE(std::shared_ptr<const ks::LoadedRunFile>)
