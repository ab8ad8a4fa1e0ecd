#pragma once

#include "metrics/loghistogram.h"
#include "metrics/percentiles.h"
#include "store/requestrecord.h"

#include <QMap>
#include <QMetaType>
#include <QString>

#include <deque>
#include <vector>

namespace ks {

/// The GPUs' latest sample (nvidia-smi), over all GPUs: mean utilization,
/// memory and power summed; -1 where no GPU reported the value.
struct GpuGauges {
    int count = 0; ///< GPUs in the sample; 0: no sample
    double utilPct = -1;
    double memUsedMib = -1;
    double memTotalMib = -1;
    double powerW = -1;
};

/// Live statistics of one run at one instant: cumulative since the run began
/// and over a rolling window of recent completions. A value type: the worker
/// side builds it, the UI receives copies.
struct RunSnapshot {
    double atS = 0; ///< seconds since the run's t0
    int done = 0;
    int ok = 0;
    int errors = 0;
    QMap<QString, int> errorsByReason;
    PercentileSummary ttftMs, tpotMs, itlMs; ///< cumulative
    PercentileSummary ttftWindowMs, tpotWindowMs, itlWindowMs; ///< completions in the window
    double windowReqPerS = 0;
    double windowOutTokPerS = 0;
    /// Experiment-wide drift so far (set by the runner): probe outputs received
    /// and probes whose output differs from the reference; -1 without probes.
    int probeOutputs = -1;
    int driftMismatches = -1;
    /// The server's latest scrape (set by the runner); -1 when unknown.
    double serverRunning = -1;
    double serverWaiting = -1;
    double kvCacheUsage = -1;
    /// Speculative decoding over the run so far (set by the runner from the
    /// scraped counters): accepted over draft tokens, and 1 + accepted per draft; -1 when unknown.
    double specAcceptance = -1;
    double specMeanAccepted = -1;
    GpuGauges gpu; ///< the latest GPU sample (set by the runner)
};

/// Folds request records (in any order) into cumulative and rolling-window
/// statistics. Warm-up requests are excluded; errors are counted
/// but never enter latency percentiles (docs/metrics.md).
///
/// Memory is bounded however long the run: cumulative percentiles come from
/// log-linear histograms (within LogHistogram::kRelativeError of the exact
/// value; count, mean and max exact), the window keeps only its own
/// completions. The exact figures are recomputed from the run file at the end
/// (summarizeRun).
class Aggregator {
public:
    explicit Aggregator(double windowS = 10.0);

    void add(const RequestRecord& record);
    /// Statistics as of `nowUs` (µs since t0); the window is (now - window, now].
    RunSnapshot snapshot(qint64 nowUs);

private:
    struct Completed {
        qint64 endUs;
        double ttftMs;
        double tpotMs;
        int outTokens;
        std::vector<double> itlMs;
    };
    qint64 m_windowUs;
    std::deque<Completed> m_window; ///< ordered by endUs
    LogHistogram m_ttft, m_tpot, m_itl; ///< cumulative
    std::vector<double> m_windowTtft, m_windowTpot, m_windowItl; ///< scratch, reused every snapshot
    RunSnapshot m_counts;
};

} // namespace ks

Q_DECLARE_METATYPE(ks::RunSnapshot)
Q_DECLARE_METATYPE(ks::GpuGauges)
