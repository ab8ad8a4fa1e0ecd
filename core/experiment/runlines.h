#pragma once

#include "spec/experimentspec.h"
#include "store/jsonlwriter.h"
#include "store/requestrecord.h"
#include "telemetry/metricsscraper.h"
#include "workload/probeset.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ks {

// The lines the runner writes into the run file beside its request records
// (docs/formats.md), and the records it reads back from there.

/// The `experiment` line that opens the file: the spec as written (secrets redacted) and the host.
nlohmann::json experimentLine(const ExperimentSpec& spec);
/// A `server_event` line; `tUs` on the running arm's clock, none between arms.
nlohmann::json serverEventLine(
    const QString& run, std::optional<qint64> tUs, const QString& event, const QString& detail);

/// Everything the `run` line that opens a run says.
struct RunStart {
    QString run, arm;
    const ConfigSpec& config;
    std::size_t configIndex = 0;
    qint64 t0MonotonicUs = 0;
    nlohmann::json planFields; ///< a sweep step's or a repeat's (ArmPlan), over the base fields
    nlohmann::json extra; ///< a shard's identity, last
    nlohmann::json probes; ///< a probe pass's `probes`; null for a load arm
    nlohmann::json prompts; ///< the workload's identity; null for a probe pass
    nlohmann::json serverVersion; ///< null until the server said
};
nlohmann::json runLine(const RunStart& start);
/// A probe pass's `probes`: the set's identity and how the pass ran.
nlohmann::json probesField(const ProbeSet& set, const ProbeSpec& spec, int restart);
/// A `server` line: one scrape of the server's gauges, `t_us` on the run's clock.
nlohmann::json serverSampleLine(const QString& run, const ServerSample& sample);
/// The request records of `runs` in the lines written since byte `offset`: the
/// file is the store, so a long arm keeps no record in memory. `run` names
/// lines that carry no run of their own; a read error is put in `error`.
std::vector<RequestRecord> recordsWrittenSince(
    const JsonlWriter& writer, qint64 offset, const QStringList& runs, const QString& run, QString* error);
/// What a failed write of the run file lost: the summaries of `unsaved` runs (shown when their arm ended).
QString lostLinesNote(const QStringList& unsaved);
/// The wall clock now, as run files write it ("2026-12-07T14:00:00.123Z").
std::string isoNow();

} // namespace ks
