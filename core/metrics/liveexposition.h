#pragma once

#include "store/requestrecord.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <map>
#include <vector>

namespace ks {

/// A Prometheus histogram with fixed bucket edges (upper bounds, seconds).
struct LiveHistogram {
    std::vector<double> edges;
    std::vector<quint64> counts; ///< per bucket, not cumulative; one more for +Inf
    double sum = 0;
    quint64 count = 0;
    void observe(double value);
};

/// The client's own view of a run as Prometheus text (`knobscope run
/// --metrics-port`, docs/distributed.md): per run, TTFT/TPOT/ITL/E2E and
/// schedule-lag histograms with vLLM's bucket edges, requests by outcome,
/// errors by reason, requests in flight and the client-bound flag. Fed the
/// records as they reach the run file, so its counts match the file's.
/// Latency histograms count completed (ok), non-warm-up requests, like every
/// summary: errors never enter them.
class LiveExposition {
public:
    void addRecords(const QString& run, const QVector<RequestRecord>& records);
    void setInFlight(const QString& run, int inFlight);
    /// The guard's verdict for a finished run (its summary's client.client_bound).
    void setClientBound(const QString& run, bool bound);
    /// The process's CPU share since the previous scrape (0..1 of all cores);
    /// above kClientBoundCpu the running run is flagged client-bound at once.
    void setClientCpu(double utilisation);
    /// Labels every series carries (e.g. the shard), as name -> value.
    void setConstantLabels(std::vector<std::pair<QString, QString>> labels) { m_constant = std::move(labels); }
    QByteArray render() const;

private:
    struct RunSeries {
        LiveHistogram ttft, tpot, itl, e2e, scheduleLag;
        quint64 ok = 0;
        quint64 errors = 0;
        std::map<QString, quint64> errorsByReason;
        int inFlight = 0;
        int clientBound = -1; ///< -1: not known yet (the arm still runs)
    };
    RunSeries& series(const QString& run);

    std::vector<std::pair<QString, RunSeries>> m_runs; ///< in the order they started
    std::vector<std::pair<QString, QString>> m_constant;
    double m_clientCpu = -1;
};

} // namespace ks
