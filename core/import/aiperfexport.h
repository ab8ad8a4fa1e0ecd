#pragma once

#include "import/importedrun.h"

#include <QByteArray>

namespace ks {

/// AIPerf's exports (docs/tutorials/working-with-profile-exports.md):
/// `profile_export_aiperf.json`, one object whose metric tags map to
/// JsonMetricResult objects (unit, avg, p1 ... p99, min, max, std;
/// src/aiperf/common/models/export_models.py, written by
/// src/aiperf/exporters/metrics_json_exporter.py), and `profile_export.jsonl`,
/// one MetricRecordInfo per request (metadata with request_start_ns and
/// request_end_ns, metrics as {value, unit}, error {code, type, message} or null).
bool looksLikeAiperfSummary(const nlohmann::json& object);
bool looksLikeAiperfRecord(const nlohmann::json& object);

/// One run from AIPerf's files: `summary` may be null (records only) and
/// `records` empty (summary only). `recordsFile` names the JSONL file in issues.
void importAiperf(const nlohmann::json& summary, const QByteArray& records, const ImportSource& source, RunFile* out);

} // namespace ks
