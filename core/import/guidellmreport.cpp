#include "import/guidellmreport.h"

#include "import/fieldreader.h"

namespace ks {

namespace {

using Need = FieldReader::Need;

// One StatusDistributionSummary's `successful` part, scaled to milliseconds.
ToolStats successfulStats(
    FieldReader& in, const nlohmann::json& metrics, const char* name, const QString& at, double toMs, Need need)
{
    ToolStats s;
    const QString path = at + QStringLiteral(".metrics.") + QLatin1String(name);
    const nlohmann::json* dist = in.object(metrics, name, path, need);
    if (!dist)
        return s;
    const nlohmann::json* ok = in.object(*dist, "successful", path + QStringLiteral(".successful"), Need::Expected);
    if (!ok)
        return s;
    const QString okPath = path + QStringLiteral(".successful");
    auto scaled = [&](const nlohmann::json& o, const char* key, const QString& p) -> std::optional<double> {
        const auto v = in.number(o, key, p + QLatin1Char('.') + QLatin1String(key), Need::Expected);
        return v ? std::optional<double>(*v * toMs) : std::nullopt;
    };
    s.mean = scaled(*ok, "mean", okPath);
    s.max = scaled(*ok, "max", okPath);
    if (const auto count = in.number(*ok, "count", okPath + QStringLiteral(".count"), Need::Optional))
        s.count = countOf(*count);
    const nlohmann::json* pct = in.object(*ok, "percentiles", okPath + QStringLiteral(".percentiles"), Need::Expected);
    if (pct) {
        const QString pctPath = okPath + QStringLiteral(".percentiles");
        s.p50 = scaled(*pct, "p50", pctPath);
        s.p90 = scaled(*pct, "p90", pctPath);
        s.p95 = scaled(*pct, "p95", pctPath);
        s.p99 = scaled(*pct, "p99", pctPath);
    }
    if (s.count && *s.count == 0)
        return {}; // no successful request carried this metric
    return s;
}

std::optional<double> successfulMean(
    FieldReader& in, const nlohmann::json& metrics, const char* name, const QString& at)
{
    const QString path = at + QStringLiteral(".metrics.") + QLatin1String(name);
    const nlohmann::json* dist = in.object(metrics, name, path, Need::Expected);
    if (!dist)
        return std::nullopt;
    const nlohmann::json* ok = in.object(*dist, "successful", path + QStringLiteral(".successful"), Need::Expected);
    return ok ? in.number(*ok, "mean", path + QStringLiteral(".successful.mean"), Need::Expected) : std::nullopt;
}

// "concurrent@16", "constant@4", "synchronous", "throughput": the strategy's type and its setting.
QString armOf(FieldReader& in, const nlohmann::json& benchmark, const QString& at)
{
    const nlohmann::json* strategy = nullptr;
    for (const char* parent : { "config", "args" }) { // "args" in reports before GuideLLM 0.4
        const auto p = benchmark.find(parent);
        if (p != benchmark.end() && p->is_object() && p->contains("strategy") && (*p)["strategy"].is_object())
            strategy = &(*p)["strategy"];
    }
    if (!strategy) {
        in.issue(at + QStringLiteral(".config.strategy: missing; the arm is named after the benchmark's index"));
        return at;
    }
    const QString type = in.string(*strategy, "type_", at + QStringLiteral(".config.strategy.type_"), Need::Expected)
                             .value_or(QStringLiteral("benchmark"));
    for (const char* setting : { "streams", "rate", "max_concurrency" }) {
        const auto it = strategy->find(setting);
        if (it != strategy->end() && it->is_number())
            return QStringLiteral("%1@%2").arg(type).arg(it->get<double>());
    }
    return type;
}

QString modelOf(const nlohmann::json& report)
{
    const auto args = report.find("args");
    if (args != report.end() && args->is_object()) {
        const auto model = args->find("model");
        if (model != args->end() && model->is_string())
            return QString::fromStdString(model->get<std::string>());
    }
    return {};
}

} // namespace

bool looksLikeGuideLlmReport(const nlohmann::json& object)
{
    return object.is_object() && object.contains("benchmarks") && object["benchmarks"].is_array();
}

void importGuideLlmReport(const nlohmann::json& report, const ImportSource& source, RunFile* out)
{
    FieldReader in(out->issues, 1);
    const nlohmann::json& benchmarks = report["benchmarks"];
    if (benchmarks.empty())
        in.issue(QStringLiteral("benchmarks: empty; nothing to import"));
    const QString model = modelOf(report);
    const QString config = model.isEmpty() ? QStringLiteral("guidellm") : model.section(QLatin1Char('/'), -1);
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        const QString at = QStringLiteral("benchmarks[%1]").arg(i);
        FieldReader skip(out->issues, 1, QStringLiteral("benchmark skipped"));
        const nlohmann::json* metrics
            = skip.object(benchmarks[i], "metrics", at + QStringLiteral(".metrics"), FieldReader::Need::Expected);
        if (!benchmarks[i].is_object() || !metrics) {
            if (!benchmarks[i].is_object())
                in.issue(QStringLiteral("%1: expected an object, got %2; benchmark skipped")
                             .arg(at, jsonTypeName(benchmarks[i])));
            continue;
        }
        int ok = 0, errored = 0, incomplete = 0;
        const nlohmann::json* totals
            = in.object(*metrics, "request_totals", at + QStringLiteral(".metrics.request_totals"), Need::Optional);
        if (totals) {
            ok = countOf(in.number(*totals, "successful", at + QStringLiteral(".metrics.request_totals.successful"),
                               Need::Expected)
                             .value_or(0));
            errored = countOf(
                in.number(*totals, "errored", at + QStringLiteral(".metrics.request_totals.errored"), Need::Optional)
                    .value_or(0));
            incomplete = countOf(in.number(*totals, "incomplete",
                                       at + QStringLiteral(".metrics.request_totals.incomplete"), Need::Optional)
                                     .value_or(0));
        }
        // By definition (docs/metrics.md): time_to_first_token_ms is TTFT,
        // time_to_first_output_token_ms (first non-reasoning token) is TTFC,
        // inter_token_latency_ms is TPOT, request_latency (seconds) is E2E.
        // time_per_output_token_ms includes TTFT and has no knobscope counterpart.
        const ToolStats ttft = successfulStats(in, *metrics, "time_to_first_token_ms", at, 1.0, Need::Expected);
        if (!totals && ttft.count)
            ok = *ttft.count;
        nlohmann::json errorsByReason = nlohmann::json::object();
        if (errored > 0)
            errorsByReason["errored"] = errored;
        if (incomplete > 0)
            errorsByReason["incomplete"] = incomplete;
        const auto rps = successfulMean(in, *metrics, "requests_per_second", at);
        nlohmann::json summary = {
            { "requests", ok + errored + incomplete },
            { "ok", ok },
            { "errors", errored + incomplete },
            { "errors_by_reason", errorsByReason },
            { "error_details", nlohmann::json::object() },
            { "ttft_ms", percentileJson(ttft) },
            { "ttfc_ms",
                percentileJson(
                    successfulStats(in, *metrics, "time_to_first_output_token_ms", at, 1.0, Need::Optional)) },
            { "tpot_ms",
                percentileJson(successfulStats(in, *metrics, "inter_token_latency_ms", at, 1.0, Need::Expected)) },
            { "itl_ms", nullptr },
            { "e2e_ms", percentileJson(successfulStats(in, *metrics, "request_latency", at, 1000.0, Need::Expected)) },
            { "schedule_lag_ms", nullptr },
            { "send_queue_ms", nullptr },
            { "req_per_s", rps.value_or(0.0) },
            { "out_tok_per_s", successfulMean(in, *metrics, "output_tokens_per_second", at).value_or(0.0) },
            { "goodput_req_per_s", rps.value_or(0.0) },
        };
        addImportedRun(out, source, config, armOf(in, benchmarks[i], at), model, {}, std::move(summary));
    }
}

} // namespace ks
