#pragma once

#include "compare/rounddecision.h"
#include "load/loadrunner.h"
#include "metrics/aggregator.h"
#include "store/runfile.h"
#include "store/summaryline.h"

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <memory>

namespace ks {

/// An experiment's `experiment` line, parsed once where it is (the runner that
/// writes it, the reader of a file), with what the dashboard reads named.
struct ExperimentInfo {
    nlohmann::json line; ///< the line as written (a file's: cleaned by the reader)
    QString tool; ///< "knobscope 1.2.0"
    QString startedAt; ///< ISO 8601, UTC
    bool hasProbes = false; ///< the spec has probes: snapshots count probe outputs from the start
};

/// The start of a run (an arm, a sweep step, a steered segment, a probe pass).
struct RunInfo {
    QString run;
    QString config;
    QString arm;
    QString model;
    int index = 0; ///< 0-based, over the experiment
    int total = 0; ///< runs expected (an estimate when sweeps may stop early); 0: not known (a replay)
    /// The `run` line, when the source has it at the start: a file's; a live
    /// run writes its line once the load has started, so it is null there
    /// (runRecorded carries it).
    nlohmann::json line;
};

/// Builds an ExperimentInfo from an `experiment` line.
ExperimentInfo experimentInfoFromLine(nlohmann::json line);
/// Registers the value types RunSource sends, for queued connections across threads.
void registerRunSourceTypes();

/// Where the dashboard's runs come from: a live experiment (ExperimentRunner,
/// in a worker thread) or a saved file (ReplayFeed). Both send the same typed
/// values, parsed once at the source, so the window, the pages and the
/// terminal have one path for live and replayed data (docs/architecture.md, "The pipeline").
class RunSource : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    /// Ends the source; finished() follows.
    virtual void stop() = 0;

signals:
    /// The experiment's first line, before its first run.
    void experimentStarted(const ks::ExperimentInfo& info);
    void runStarted(const ks::RunInfo& info);
    /// Progress of the current run, at most 10 times a second (with the snapshots).
    void progressed(const ks::LoadProgress& progress);
    /// Statistics of the current run since its start, at most 10 times a second.
    void snapshotReady(const QString& run, const ks::RunSnapshot& snapshot);
    /// A run's summary (without the file line's "type").
    void runFinished(const QString& run, const ks::RunSummary& summary);
    /// A finished run as the file holds it (run line, records, summary), where
    /// the source has it whole (a live run): a window shows it without reading
    /// back the file that is still being written.
    void runRecorded(std::shared_ptr<const ks::RunData> run);
    /// The decision after a round of repeats that run until decided (a `round`
    /// line: docs/formats.md), live as the runner writes it or read from a file.
    void roundDecided(const ks::RoundDecision& decision);
    /// A probe of a search over several knobs has ended: its `search_probe` line (docs/formats.md), live as the
    /// runner writes it or read from a file.
    void searchProbed(const nlohmann::json& line);
    /// A search has ended: its closing `search` line (the recommendation, the plateau, every probe), live as the
    /// runner writes it or read from a file.
    void searchEnded(const nlohmann::json& line);
    /// Server output and lifecycle events, as the Log page shows them.
    void serverLine(const QString& line);
    /// A line of a file the source could not use; it goes on.
    void issueFound(qint64 line, const QString& message);
    /// `message` is empty when all went well, else what went wrong or was skipped.
    void finished(const QString& message);
};

} // namespace ks

Q_DECLARE_METATYPE(ks::ExperimentInfo)
Q_DECLARE_METATYPE(ks::RunInfo)
Q_DECLARE_METATYPE(ks::RoundDecision)
Q_DECLARE_METATYPE(nlohmann::json)
Q_DECLARE_METATYPE(std::shared_ptr<const ks::RunData>)
