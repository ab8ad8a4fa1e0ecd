#pragma once

#include "metrics/runsummary.h"
#include "store/runfile.h"

#include <QByteArray>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

/// Where an imported run came from: the `imported` object of its `run` line.
struct ImportSource {
    QString tool; ///< "vllm", "guidellm", "aiperf"
    QString version; ///< the tool's version as the file gives it, else "unknown"
    QByteArray sha256; ///< hex SHA-256 of the file's bytes (of the summary file for AIPerf)
};

/// A tool's statistics of one metric, in milliseconds; what it does not give stays empty.
struct ToolStats {
    std::optional<double> p50, p90, p95, p99, max, mean;
    std::optional<int> count;
};

/// A percentile object in `report --json`'s shape; statistics the tool did not
/// give are left out (never guessed), and null when it gave none at all.
nlohmann::json percentileJson(const ToolStats& stats);

/// Hex SHA-256 of a file's bytes.
QByteArray sha256Hex(const QByteArray& bytes);

/// Adds one imported run to `file`. `requests` empty makes it summary-only:
/// `toolSummary` (report-shaped: requests, ok, errors, the percentile objects,
/// req_per_s, ...) is then all there is. With requests, toolSummary keeps the
/// tool's own aggregates as the run's summary line, and `report` recomputes
/// from the records as it does for knobscope's own files. `sendTimes` false:
/// the records have no send times (throughput is the tool's, not recomputed).
/// Run labels are made unique within the file ("config/arm", then "#2", ...).
void addImportedRun(RunFile* file, const ImportSource& source, const QString& config, const QString& arm,
    const QString& model, std::vector<RequestRecord> requests, nlohmann::json toolSummary, bool sendTimes = true);

bool isImported(const RunData& run);
bool isSummaryOnly(const RunData& run);

/// The `report --json` object of an imported run: a summary-only run's stored
/// figures (the tool's own), or the summary recomputed from its records. Both
/// carry a warning that says what the figures are and why intervals are missing.
nlohmann::json importedRunSummary(const RunData& run, const Slo& slo);

/// The `experiment` line of a file made by `knobscope import`.
nlohmann::json importExperimentLine(const QStringList& sources);

} // namespace ks
