#include "metrics/armverdicts.h"

#include <QString>

#include <algorithm>

namespace ks {

namespace {

// Above this, the client's own send path is a visible share of TTFT at typical
// gentle-arm values. send_queue_ms (post() -> requestSent seen by the posting
// thread) bounds the send path from above: against the simulator's kernel
// arrival stamp, calibrate measured send_queue_ms at 105-120 % of the real
// post() -> arrival per request (docs/PERFORMANCE.md), so 2 ms here means at
// least ~1.7 ms of the client's own send path.
constexpr double kSendQueueWarnMs = 2.0;

} // namespace

nlohmann::json clientVerdict(const ClientLoad& client, nlohmann::json& warnings)
{
    // Late timers alone do not make a run client-bound: on a busy machine other
    // processes delay the client's threads while the client itself is idle.
    const bool late = client.loopLagP99Ms > kClientBoundLagMs;
    const bool busyClient = client.cpuUtilisation * client.cores >= kClientBusyCores;
    const bool bound = client.cpuUtilisation > kClientBoundCpu || (late && busyClient);
    const bool busyMachine = late && !bound;
    nlohmann::json out = { { "loop_lag_p99_ms", client.loopLagP99Ms }, { "cpu_utilisation", client.cpuUtilisation },
        { "cores", client.cores }, { "client_bound", bound }, { "busy_machine", busyMachine },
        { "connect_failures", client.connectFailures } };
    if (client.loadAverage >= 0)
        out["load_average"] = client.loadAverage;
    if (client.connectFailures > 0)
        warnings.push_back(std::to_string(client.connectFailures)
            + " connections opened before the clock started got no answer (" + client.connectError.toStdString()
            + "); the first requests on them may include a connection handshake in TTFT");
    const std::string lagText = QString::number(client.loopLagP99Ms, 'f', 1).toStdString();
    const std::string cpu = QString::number(client.cpuUtilisation * 100, 'f', 0).toStdString() + " % of "
        + std::to_string(client.cores) + " cores";
    if (bound)
        warnings.push_back("client-bound: the client's own threads used " + cpu + " and its event loop ran up to "
            + lagText
            + " ms late (p99), so latencies include up to that much client overhead; use fewer streams per "
              "core or a bigger client machine");
    else if (busyMachine)
        warnings.push_back("busy machine: the client's event loop ran up to " + lagText
            + " ms late (p99) while its own threads used only " + cpu
            + (client.loadAverage >= 0 ? ", load average " + QString::number(client.loadAverage, 'f', 1).toStdString()
                                       : std::string())
            + "; other processes held the CPU, so timestamps can be late by about that much");
    return out;
}

std::string sendQueueWarning(double p50Ms, double p99Ms)
{
    if (p50Ms <= kSendQueueWarnMs)
        return {};
    return "requests took " + QString::number(p50Ms, 'f', 1).toStdString() + " ms (p50; p99 "
        + QString::number(p99Ms, 'f', 1).toStdString()
        + " ms) from post() until the client's HTTP stack reported them sent (send_queue_ms); TTFT and E2E "
          "include this client time. It is an upper bound: the report arrives after the bytes are on the "
          "wire (knobscope calibrate measures the difference)";
}

int peakInFlight(const std::vector<RequestRecord>& records)
{
    std::vector<std::pair<qint64, int>> edges;
    for (const RequestRecord& r : records) {
        edges.push_back({ r.tSendUs, +1 });
        edges.push_back({ r.tSendUs + std::max<qint64>(0, r.e2eUs), -1 });
    }
    std::sort(edges.begin(), edges.end());
    int now = 0;
    int peak = 0;
    for (const auto& [t, delta] : edges)
        peak = std::max(peak, now += delta);
    return peak;
}

bool isGentleArm(
    const std::vector<RequestRecord>& records, int samples, int samplesWaiting, std::optional<int> maxNumSeqs)
{
    constexpr double kQueuedShare = 0.10;
    constexpr int kEnoughSamples = 10; // fewer scrapes cannot tell a queue from one unlucky sample
    const bool queuedByMetrics = double(samplesWaiting) >= kQueuedShare * samples;
    if (samples >= kEnoughSamples)
        return !queuedByMetrics;
    if (maxNumSeqs)
        return peakInFlight(records) <= *maxNumSeqs;
    return samples > 0 && !queuedByMetrics;
}

QString gentleWarning(const std::vector<RequestRecord>& records, std::optional<int> maxNumSeqs)
{
    // At most a quarter of the slots ever busy: the server had little to do.
    constexpr int kIdleShareDenominator = 4;
    const int peak = peakInFlight(records);
    if (!maxNumSeqs || *maxNumSeqs <= 0)
        return QStringLiteral("this arm never queued (no request waited on the server), so it cannot show a "
                              "queueing cliff");
    if (peak * kIdleShareDenominator <= *maxNumSeqs)
        return QStringLiteral("this arm never queued: it measured an idle server (peak %1 in flight of %2 slots)")
            .arg(peak)
            .arg(*maxNumSeqs);
    return QStringLiteral("this arm never queued: in flight stayed within max_num_seqs (peak %1 of %2), so it "
                          "cannot show a queueing cliff")
        .arg(peak)
        .arg(*maxNumSeqs);
}

void addGentleVerdict(nlohmann::json& summary, const std::vector<RequestRecord>& records, bool loadArm, int samples,
    int samplesWaiting, std::optional<int> maxNumSeqs)
{
    const bool gentle = loadArm && isGentleArm(records, samples, samplesWaiting, maxNumSeqs);
    summary["gentle"] = gentle;
    summary["peak_in_flight"] = peakInFlight(records);
    if (gentle)
        summary["warnings"].push_back(gentleWarning(records, maxNumSeqs).toStdString());
}

} // namespace ks
