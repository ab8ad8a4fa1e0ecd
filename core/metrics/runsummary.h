#pragma once

#include "metrics/requestrecord.h"
#include "store/requesttable.h"

#include <QStringList>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

struct Slo {
    double ttftMs = 0; ///< 0: no SLO on TTFT
    double tpotMs = 0;
    bool any() const { return ttftMs > 0 || tpotMs > 0; }
};

/// The SLO of the experiment a run file was written for (its `experiment`
/// line's spec.slo). Missing or wrong-typed values count as no SLO, never throw.
Slo experimentSlo(const nlohmann::json& experimentLine);

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

/// The `report --json` object for one run (DESIGN.md section 7), computed from
/// its request records. Warm-up requests are excluded; errors never enter
/// latency percentiles. Fields this version cannot know yet (server samples,
/// drift, the gentle-arm check) are omitted rather than guessed.
nlohmann::json summarizeRun(const QString& run, const QString& config, const QString& arm,
    const std::vector<RequestRecord>& records, const Slo& slo, const ClientLoad& client = {});
/// The same from the compact records of a loaded run file.
nlohmann::json summarizeRun(const QString& run, const QString& config, const QString& arm, const RequestTable& records,
    const Slo& slo, const ClientLoad& client = {});

/// The bounds of a summary's or compare arm's `slo` object ("TTFT <= 500 ms",
/// "TPOT <= 50 ms"); empty when none is set.
QStringList sloBounds(const nlohmann::json& slo);

/// A human-readable table of one summary object.
QString formatSummaryTable(const nlohmann::json& summary);

} // namespace ks
