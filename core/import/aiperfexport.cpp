#include "import/aiperfexport.h"

#include "import/fieldreader.h"

#include <QList>

#include <cmath>
#include <limits>

namespace ks {

namespace {

using Need = FieldReader::Need;

// AIPerf's time units (its MetricTimeUnit) in milliseconds.
std::optional<double> msPerUnit(const QString& unit)
{
    if (unit == QLatin1String("ms"))
        return 1.0;
    if (unit == QLatin1String("ns"))
        return 1e-6;
    if (unit == QLatin1String("us"))
        return 1e-3;
    if (unit == QLatin1String("sec") || unit == QLatin1String("s"))
        return 1000.0;
    return std::nullopt;
}

ToolStats summaryStats(FieldReader& in, const nlohmann::json& summary, const char* tag, Need need)
{
    ToolStats s;
    const nlohmann::json* metric = in.object(summary, tag, QLatin1String(tag), need);
    if (!metric)
        return s;
    const QString path = QLatin1String(tag);
    const auto unit = in.string(*metric, "unit", path + QStringLiteral(".unit"), Need::Expected);
    const auto scale = unit ? msPerUnit(*unit) : std::nullopt;
    if (!scale) {
        if (unit)
            in.issue(QStringLiteral("%1.unit: \"%2\" is not a time unit; left empty").arg(path, *unit));
        return s;
    }
    auto get = [&](const char* key, Need n) -> std::optional<double> {
        const auto v = in.number(*metric, key, path + QLatin1Char('.') + QLatin1String(key), n);
        return v ? std::optional<double>(*v * *scale) : std::nullopt;
    };
    s.mean = get("avg", Need::Expected);
    s.p50 = get("p50", Need::Expected);
    s.p90 = get("p90", Need::Optional);
    s.p95 = get("p95", Need::Optional);
    s.p99 = get("p99", Need::Expected);
    s.max = get("max", Need::Optional);
    return s;
}

std::optional<double> summaryAvg(FieldReader& in, const nlohmann::json& summary, const char* tag, Need need)
{
    const nlohmann::json* metric = in.object(summary, tag, QLatin1String(tag), need);
    return metric ? in.number(*metric, "avg", QLatin1String(tag) + QStringLiteral(".avg"), Need::Expected)
                  : std::nullopt;
}

// A record's metric as {value, unit}: a time in ms, a count, or a list of times in ms.
struct RecordMetrics {
    FieldReader& in;
    const nlohmann::json& metrics;

    const nlohmann::json* value(const char* tag, Need need)
    {
        const nlohmann::json* m = in.object(metrics, tag, QStringLiteral("metrics.") + QLatin1String(tag), need);
        if (!m)
            return nullptr;
        const auto it = m->find("value");
        if (it == m->end() || it->is_null()) {
            in.issue(QStringLiteral("metrics.%1.value: missing; left empty").arg(QLatin1String(tag)));
            return nullptr;
        }
        return &*it;
    }
    std::optional<double> scale(const char* tag)
    {
        const nlohmann::json& m = metrics[tag];
        const auto unit
            = in.string(m, "unit", QStringLiteral("metrics.%1.unit").arg(QLatin1String(tag)), Need::Expected);
        const auto s = unit ? msPerUnit(*unit) : std::nullopt;
        if (unit && !s)
            in.issue(QStringLiteral("metrics.%1.unit: \"%2\" is not a time unit; left empty")
                         .arg(QLatin1String(tag), *unit));
        return s;
    }
    std::optional<double> timeMs(const char* tag, Need need)
    {
        const nlohmann::json* v = value(tag, need);
        if (!v)
            return std::nullopt;
        const auto s = scale(tag);
        const auto n = in.element(*v, QStringLiteral("metrics.%1.value").arg(QLatin1String(tag)));
        return s && n ? std::optional<double>(*n * *s) : std::nullopt;
    }
    std::optional<double> count(const char* tag, Need need)
    {
        const nlohmann::json* v = value(tag, need);
        return v ? in.element(*v, QStringLiteral("metrics.%1.value").arg(QLatin1String(tag))) : std::nullopt;
    }
};

std::optional<qint64> integer(FieldReader& in, const nlohmann::json& o, const char* key, const QString& path)
{
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) {
        in.issue(path + QStringLiteral(": missing; record skipped"));
        return std::nullopt;
    }
    if (!it->is_number_integer()) {
        in.issue(QStringLiteral("%1: expected an integer, got %2; record skipped").arg(path, jsonTypeName(*it)));
        return std::nullopt;
    }
    return it->get<qint64>();
}

bool readRecord(
    const nlohmann::json& line, qint64 lineNumber, std::vector<RunFileIssue>& issues, RequestRecord* r, qint64* startNs)
{
    FieldReader in(issues, lineNumber);
    const nlohmann::json* metadata = in.object(line, "metadata", QStringLiteral("metadata"), Need::Expected);
    if (!metadata)
        return false;
    const auto start = integer(in, *metadata, "request_start_ns", QStringLiteral("metadata.request_start_ns"));
    if (!start)
        return false;
    *startNs = *start;
    const auto phase
        = in.string(*metadata, "benchmark_phase", QStringLiteral("metadata.benchmark_phase"), Need::Optional);
    r->warmup = phase && *phase == QLatin1String("warmup");
    const auto errorIt = line.find("error");
    const bool failed = errorIt != line.end() && !errorIt->is_null();
    static const nlohmann::json kNoMetrics = nlohmann::json::object();
    const auto metricsIt = line.find("metrics");
    const nlohmann::json& metrics = metricsIt != line.end() && metricsIt->is_object() ? *metricsIt : kNoMetrics;
    RecordMetrics m { in, metrics };
    if (const auto isl = m.count("input_sequence_length", Need::Optional))
        r->inTokens = countOf(*isl);
    if (failed) {
        const nlohmann::json& e = *errorIt;
        const int code
            = e.is_object() && e.contains("code") && e["code"].is_number_integer() ? e["code"].get<int>() : 0;
        const bool cancelled = metadata->value("was_cancelled", false) == true;
        r->ok = false;
        r->status = code >= 100 && code <= 999 ? code : 0;
        r->error = cancelled             ? ErrorReason::kCancelled
            : code >= 400 && code <= 599 ? ErrorReason::kHttpPrefix + QString::number(code)
                                         : QStringLiteral("tool_error");
        const std::string type = e.is_object() ? e.value("type", std::string()) : std::string();
        const std::string message = e.is_object() ? e.value("message", std::string()) : e.dump();
        r->errorDetail = QString::fromStdString(type + (type.empty() ? "" : ": ") + message).left(kMaxDetailChars);
        return true;
    }
    // By definition: time_to_first_token is TTFT, request_latency is E2E,
    // inter_chunk_latency (the gaps) is ITL; inter_token_latency is TPOT and is
    // recomputed from these (docs/metrics.md).
    const auto ttft = m.timeMs("time_to_first_token", Need::Expected);
    const auto e2e = m.timeMs("request_latency", Need::Expected);
    auto osl = m.count("output_sequence_length", Need::Optional);
    if (!osl)
        osl = m.count("output_token_count", Need::Expected);
    if (!ttft || !e2e || !osl) {
        in.issue(QStringLiteral("record skipped: a successful request needs time_to_first_token, request_latency "
                                "and output_sequence_length"));
        return false;
    }
    r->ok = true;
    r->status = 200;
    r->ttftUs = microsFromMs(*ttft);
    r->e2eUs = microsFromMs(*e2e);
    r->outTokens = countOf(*osl);
    if (const auto ttfc = m.timeMs("time_to_first_output_token", Need::Optional))
        r->ttfcUs = microsFromMs(*ttfc);
    if (const nlohmann::json* gaps = m.value("inter_chunk_latency", Need::Optional)) {
        const auto scale = m.scale("inter_chunk_latency");
        if (!gaps->is_array()) {
            in.issue(QStringLiteral("metrics.inter_chunk_latency.value: expected an array, got %1; left empty")
                         .arg(jsonTypeName(*gaps)));
        } else if (scale) {
            for (std::size_t g = 0; g < gaps->size(); ++g) {
                const auto gap = in.element((*gaps)[g], QStringLiteral("metrics.inter_chunk_latency.value[%1]").arg(g));
                if (!gap || *gap < 0) {
                    r->itlUs.clear();
                    break;
                }
                r->itlUs.push_back(std::int32_t(
                    std::min<qint64>(microsFromMs(*gap * *scale), std::numeric_limits<std::int32_t>::max())));
            }
        }
    }
    return true;
}

} // namespace

bool looksLikeAiperfSummary(const nlohmann::json& object)
{
    if (!object.is_object())
        return false;
    if (object.contains("aiperf_version") || object.contains("input_config"))
        return true;
    const auto latency = object.find("request_latency");
    return latency != object.end() && latency->is_object() && latency->contains("unit") && latency->contains("avg");
}

bool looksLikeAiperfRecord(const nlohmann::json& object)
{
    return object.is_object() && object.contains("metadata") && object["metadata"].is_object()
        && object.contains("metrics");
}

void importAiperf(
    const nlohmann::json& summary, const QByteArray& recordBytes, const ImportSource& source, RunFile* out)
{
    FieldReader in(out->issues, 1);
    ImportSource versioned = source;
    QString model;
    QString arm = QStringLiteral("aiperf");
    nlohmann::json toolSummary = nlohmann::json::object();
    if (summary.is_object()) {
        if (const auto v = in.string(summary, "aiperf_version", QStringLiteral("aiperf_version"), Need::Optional))
            versioned.version = *v;
        const auto config = summary.find("input_config");
        if (config != summary.end() && config->is_object()) {
            const nlohmann::json names
                = config->value("endpoint", nlohmann::json::object()).value("model_names", nlohmann::json::array());
            if (names.is_array() && !names.empty() && names[0].is_string())
                model = QString::fromStdString(names[0].get<std::string>());
            const nlohmann::json loadgen = config->value("loadgen", nlohmann::json::object());
            if (loadgen.is_object() && loadgen.contains("concurrency") && loadgen["concurrency"].is_number())
                arm = QStringLiteral("concurrency=%1").arg(loadgen["concurrency"].get<double>());
            else if (loadgen.is_object() && loadgen.contains("request_rate") && loadgen["request_rate"].is_number())
                arm = QStringLiteral("rate=%1").arg(loadgen["request_rate"].get<double>());
        }
        const auto okCount = summaryAvg(in, summary, "request_count", Need::Expected);
        const auto errorCount = summaryAvg(in, summary, "error_request_count", Need::Optional);
        const int ok = countOf(okCount.value_or(0));
        const int errors = countOf(errorCount.value_or(0));
        const auto rps = summaryAvg(in, summary, "request_throughput", Need::Expected);
        ToolStats ttft = summaryStats(in, summary, "time_to_first_token", Need::Expected);
        ToolStats e2e = summaryStats(in, summary, "request_latency", Need::Expected);
        if (okCount)
            ttft.count = e2e.count = ok;
        toolSummary = {
            { "requests", ok + errors },
            { "ok", ok },
            { "errors", errors },
            { "errors_by_reason", errors > 0 ? nlohmann::json { { "tool_error", errors } } : nlohmann::json::object() },
            { "error_details", nlohmann::json::object() },
            { "ttft_ms", percentileJson(ttft) },
            { "ttfc_ms", percentileJson(summaryStats(in, summary, "time_to_first_output_token", Need::Optional)) },
            { "tpot_ms", percentileJson(summaryStats(in, summary, "inter_token_latency", Need::Expected)) },
            { "itl_ms", percentileJson(summaryStats(in, summary, "inter_chunk_latency", Need::Optional)) },
            { "e2e_ms", percentileJson(e2e) },
            { "schedule_lag_ms", nullptr },
            { "send_queue_ms", nullptr },
            { "req_per_s", rps.value_or(0.0) },
            { "out_tok_per_s", summaryAvg(in, summary, "output_token_throughput", Need::Expected).value_or(0.0) },
            { "goodput_req_per_s", rps.value_or(0.0) },
        };
    }
    std::vector<RequestRecord> records;
    std::vector<qint64> starts;
    qint64 lineNumber = 0;
    for (const QByteArray& text : recordBytes.split('\n')) {
        ++lineNumber;
        if (text.trimmed().isEmpty())
            continue;
        const nlohmann::json line = parseJsonGuarded(text);
        if (line.is_discarded() || !line.is_object()) {
            out->issues.push_back(
                { lineNumber, QStringLiteral("profile_export.jsonl: not a JSON object; line skipped") });
            continue;
        }
        RequestRecord r;
        qint64 startNs = 0;
        if (!readRecord(line, lineNumber, out->issues, &r, &startNs))
            continue;
        r.id = qint64(records.size());
        records.push_back(std::move(r));
        starts.push_back(startNs);
    }
    if (!starts.empty()) {
        const qint64 first = *std::min_element(starts.begin(), starts.end());
        for (std::size_t i = 0; i < records.size(); ++i)
            records[i].tSchedUs = records[i].tSendUs = (starts[i] - first) / 1000;
    }
    if (!summary.is_object() && records.empty()) {
        in.issue(QStringLiteral("no readable records and no profile_export_aiperf.json beside them; nothing imported"));
        return;
    }
    const QString config = model.isEmpty() ? QStringLiteral("aiperf") : model.section(QLatin1Char('/'), -1);
    addImportedRun(out, versioned, config, arm, model, std::move(records), std::move(toolSummary));
}

} // namespace ks
