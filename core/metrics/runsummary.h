#pragma once

#include "metrics/armverdicts.h"
#include "store/requestrecord.h"
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

/// The `report --json` object for one run (docs/formats.md), computed from
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
QStringList sloBounds(const Slo& slo);

/// A human-readable table of one summary object.
QString formatSummaryTable(const nlohmann::json& summary);

} // namespace ks
