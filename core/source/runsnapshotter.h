#pragma once

#include "drift/drifttally.h"
#include "metrics/aggregator.h"
#include "metrics/specdecode.h"

#include <QString>
#include <QVector>

#include <memory>

namespace ks {

/// The one place where a run's records, scrapes and probe outputs become
/// RunSnapshots, for a live experiment and for a replayed file alike
/// (docs/architecture.md, "The pipeline"). It has no clock of its own: the caller says when a
/// snapshot is taken, on the run's clock. Live, the runner takes one at most
/// every 100 ms and writes that instant into the file as a `tick` line;
/// replay takes its snapshots at the same ticks over the same records in the
/// same order, so it draws exactly the points the live run drew.
class RunSnapshotter {
public:
    /// The experiment has probes: snapshots count probe outputs (0 until the
    /// first pass) from its start.
    void expectProbes() { m_hasProbes = true; }
    /// The experiment's probe set, once, before its first probe pass.
    void setProbeSet(const nlohmann::json& identity);
    /// A new run: statistics start empty; scrapes are forgotten. A probe pass
    /// (`probeRestart` >= 0) also feeds the experiment-wide drift tally. Only
    /// records of `run` count: a steered arm's earlier segment still finishes
    /// requests after the next one began (they go into its own summary).
    void beginRun(const QString& run, const QString& config, const QString& model, int probeRestart);
    void addRecords(const QVector<RequestRecord>& records);
    /// A scrape of the server (-1: not reported).
    void addServerSample(double running, double waiting, double kvCacheUsage);
    /// A scrape's spec-decode figures: snapshots show the acceptance since the run's first one.
    void addSpecDecode(const SpecDecodeCounters& counters);
    /// A GPU sample (nvidia-smi), shown until the next one.
    void addGpuSample(const GpuGauges& gauges);
    /// True when something arrived since the last snapshot.
    bool dirty() const { return m_dirty; }
    bool inRun() const { return m_aggregator != nullptr; }
    /// The run's statistics at `runTimeUs` (µs since its t0). Needs inRun().
    RunSnapshot snapshot(qint64 runTimeUs);
    void endRun() { m_aggregator.reset(); }
    const DriftTally& drift() const { return m_drift; }
    bool hasProbes() const { return m_hasProbes; }

private:
    std::unique_ptr<Aggregator> m_aggregator;
    DriftTally m_drift; ///< every probe output of the experiment so far
    bool m_hasProbes = false;
    QString m_run;
    QString m_config;
    QString m_model;
    int m_probeRestart = -1;
    double m_running = -1, m_waiting = -1, m_kvCacheUsage = -1;
    GpuGauges m_gpu;
    std::optional<SpecDecodeCounters> m_firstSpec, m_lastSpec;
    bool m_dirty = false;
};

/// The snapshot cadence on the run's clock: the dashboard's ceiling of 10
/// snapshots a second.
inline constexpr qint64 kSnapshotIntervalUs = 100'000;

} // namespace ks
