#pragma once

#include "store/requestrecord.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

// The verdicts a run's summary gives about the run itself rather than the
// server: whether the client limited what was measured, whether the machine
// was busy, whether the arm ever queued on the server (gentle).

namespace ks {

/// Above either, the client itself limited what was measured (the summary's client.client_bound).
inline constexpr double kClientBoundLagMs = 5.0;
inline constexpr double kClientBoundCpu = 0.9;
/// A late event loop is the client's own doing only when its threads were busy:
/// at least half a core on average. Below that, other processes held the CPU.
inline constexpr double kClientBusyCores = 0.5;

/// The client's own load during a run, for the client-saturation guard.
struct ClientLoad {
    double loopLagP99Ms = -1; ///< worker event-loop lateness
    double cpuUtilisation = -1; ///< process CPU / (wall * cores), 0..1
    int cores = 0;
    int connectFailures = 0; ///< pre-opened connections that got no answer before t0
    QString connectError; ///< why the first of them failed
    double loadAverage = -1; ///< the machine's 1-minute load average at the arm's end, -1 unknown
    bool known() const { return loopLagP99Ms >= 0; }
};

/// The summary's `client` object and the warnings it implies (client-bound,
/// busy machine, unanswered pre-opened connections), appended to `warnings`.
nlohmann::json clientVerdict(const ClientLoad& client, nlohmann::json& warnings);

/// The warning when the client's own send path (send_queue_ms, p50 and p99 in
/// ms) is a visible share of TTFT; empty when it is not.
std::string sendQueueWarning(double p50Ms, double p99Ms);

/// True when a run never queued on the server. With at least 10 scrapes: fewer
/// than 10 % of them saw a waiting request (a request always waits a moment for
/// the next engine step; that is not a queue). Otherwise: the peak number of
/// requests in flight never exceeded the configuration's max_num_seqs knob.
bool isGentleArm(
    const std::vector<RequestRecord>& records, int samples, int samplesWaiting, std::optional<int> maxNumSeqs);
int peakInFlight(const std::vector<RequestRecord>& records);
/// What a gentle run's warning says: "idle server" only when at most a quarter
/// of max_num_seqs was ever in flight; otherwise that in flight stayed within
/// max_num_seqs, so the run cannot show a queueing cliff.
QString gentleWarning(const std::vector<RequestRecord>& records, std::optional<int> maxNumSeqs);
/// Sets a summary's `gentle` and `peak_in_flight` and, for a gentle arm, adds
/// its warning. Only load arms are judged: probe passes are gentle on purpose.
void addGentleVerdict(nlohmann::json& summary, const std::vector<RequestRecord>& records, bool loadArm, int samples,
    int samplesWaiting, std::optional<int> maxNumSeqs);

} // namespace ks
