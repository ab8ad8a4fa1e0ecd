#include "experiment/runlines.h"

#include "metrics/specdecode.h"
#include "store/runline.h"
#include "telemetry/hostenvironment.h"
#include "util/qstringtext.h"
#include "util/redact.h"
#include "util/wallclock.h"

#include <QDateTime>

namespace ks {

nlohmann::json experimentLine(const ExperimentSpec& spec)
{
    nlohmann::json experiment = { { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope " KNOBSCOPE_VERSION },
        { "started_at", isoNow() }, { "spec", redactSpec(spec.raw) }, { "environment", hostEnvironment() } };
    if (!spec.calibration.is_null()) // run --aa N: readCalibration() knows the file by it
        experiment["calibration"] = spec.calibration;
    return experiment;
}

nlohmann::json serverEventLine(
    const QString& run, std::optional<qint64> tUs, const QString& event, const QString& detail)
{
    return { { "type", "server_event" }, { "run", text(run) },
        { "t_us", tUs ? nlohmann::json(*tUs) : nlohmann::json(nullptr) }, { "wall", isoNow() },
        { "event", text(event) }, { "detail", text(detail) } };
}

nlohmann::json runLine(const RunStart& s)
{
    const ConfigSpec& config = s.config;
    nlohmann::json line = { { "type", "run" }, { "run", text(s.run) }, { "config", text(config.label) },
        { "arm", text(s.arm) }, { "t0_wall", isoNow() }, { "t0_monotonic_us", s.t0MonotonicUs },
        { "knobs", config.knobs }, { "config_index", s.configIndex }, { "model", text(config.model) },
        { "ticks", true }, { "t0_unix_us", unixUsAtMonotonic(s.t0MonotonicUs) } };
    if (!config.grid.is_null())
        line["grid"] = config.grid;
    line.update(s.planFields);
    if (!config.search.is_null())
        line["search"] = config.search;
    line.update(s.extra);
    if (!s.probes.is_null())
        line["probes"] = s.probes;
    if (!s.prompts.is_null())
        line["prompts"] = s.prompts;
    if (!s.serverVersion.is_null())
        line["server_version"] = s.serverVersion;
    return line;
}

nlohmann::json probesField(const ProbeSet& set, const ProbeSpec& spec, int restart)
{
    nlohmann::json probes = set.identity();
    probes["restart"] = restart;
    probes["repeats"] = restart == 0 ? spec.repeats : 1;
    probes["max_tokens"] = spec.maxTokens;
    probes["concurrency"] = spec.concurrency;
    return probes;
}

nlohmann::json serverSampleLine(const QString& run, const ServerSample& s)
{
    auto value = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json line = { { "type", "server" }, { "run", text(run) }, { "t_us", s.tUs },
        { "running", value(s.running) }, { "waiting", value(s.waiting) }, { "kv_cache_usage", value(s.kvCacheUsage) },
        { "engine", text(s.engine) } };
    if (s.specDecode)
        line["spec_decode"] = specDecodeJson(*s.specDecode);
    return line;
}

std::vector<RequestRecord> recordsWrittenSince(
    const JsonlWriter& writer, qint64 offset, const QStringList& runs, const QString& run, QString* error)
{
    std::vector<RequestRecord> records;
    std::vector<RunFileIssue> issues;
    qint64 line = 0;
    writer.readBack(
        offset,
        [&](QByteArrayView text) {
            RunLine decoded = readRunLine(text, ++line, issues, &run);
            if (decoded.kind == RunLine::Kind::Request && runs.contains(decoded.run))
                records.push_back(std::move(decoded.request));
        },
        error);
    return records;
}

QString lostLinesNote(const QStringList& unsaved)
{
    QString lost = QStringLiteral("the run stopped there; the file keeps every line written before the failure");
    if (!unsaved.isEmpty())
        lost += QStringLiteral(", but not the summary of %1 (shown when the arm ended)")
                    .arg(unsaved.join(QStringLiteral(", ")));
    return lost;
}

std::string isoNow()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

} // namespace ks
