#include "import/vllmresult.h"

#include "import/fieldreader.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

namespace {

using Need = FieldReader::Need;

// vLLM names a percentile key p{P}_{metric}_ms with P an integer when it is one
// ("p99", "p99.9"; serve.py, process_one_metric). Its median is median_{metric}_ms.
ToolStats vllmStats(FieldReader& in, const nlohmann::json& o, const char* metric, std::optional<int> count)
{
    ToolStats s;
    auto get = [&](const char* prefix) {
        const std::string key = std::string(prefix) + "_" + metric + "_ms";
        return in.number(o, key.c_str(), QString::fromStdString(key), Need::Optional);
    };
    s.mean = get("mean");
    s.p50 = get("median");
    if (!s.p50)
        s.p50 = get("p50");
    s.p90 = get("p90");
    s.p95 = get("p95");
    s.p99 = get("p99");
    if (s.mean || s.p50 || s.p99)
        s.count = count;
    return s;
}

qint64 micros(double seconds)
{
    return microsFromMs(seconds * 1000.0);
}

QString armOf(FieldReader& in, const nlohmann::json& o)
{
    if (const auto c = in.number(o, "max_concurrency", QStringLiteral("max_concurrency"), Need::Optional))
        return QStringLiteral("concurrency=%1").arg(*c);
    const auto rate = o.find("request_rate");
    if (rate != o.end() && rate->is_number())
        return QStringLiteral("rate=%1").arg(rate->get<double>());
    if (rate != o.end() && rate->is_string())
        return QStringLiteral("rate=%1").arg(QString::fromStdString(rate->get<std::string>()));
    return QStringLiteral("vllm");
}

// The per-request arrays as records; false (and issues) when they cannot be read.
bool readDetailed(FieldReader& in, const nlohmann::json& o, std::vector<RequestRecord>* records, bool* sendTimes)
{
    const nlohmann::json* ttfts = in.array(o, "ttfts", QStringLiteral("ttfts"), Need::Optional);
    if (!ttfts)
        return false; // saved without --save-detailed
    const nlohmann::json* itls = in.array(o, "itls", QStringLiteral("itls"), Need::Expected);
    const nlohmann::json* outLens = in.array(o, "output_lens", QStringLiteral("output_lens"), Need::Expected);
    const nlohmann::json* inLens = in.array(o, "input_lens", QStringLiteral("input_lens"), Need::Optional);
    const nlohmann::json* errors = in.array(o, "errors", QStringLiteral("errors"), Need::Optional);
    const nlohmann::json* starts = in.array(o, "start_times", QStringLiteral("start_times"), Need::Optional);
    const nlohmann::json* latencies = in.array(o, "latencies", QStringLiteral("latencies"), Need::Optional);
    if (!itls || !outLens)
        return false;
    const std::size_t n = ttfts->size();
    for (const auto& [array, name] : { std::pair { itls, "itls" }, std::pair { outLens, "output_lens" },
             std::pair { inLens, "input_lens" }, std::pair { errors, "errors" }, std::pair { starts, "start_times" },
             std::pair { latencies, "latencies" } }) {
        if (array && array->size() != n) {
            in.issue(QStringLiteral("%1: %2 entries where ttfts has %3; per-request data not used")
                         .arg(QLatin1String(name))
                         .arg(array->size())
                         .arg(n));
            return false;
        }
    }
    double firstStart = std::numeric_limits<double>::max();
    if (starts) {
        for (std::size_t i = 0; i < n; ++i) {
            if ((*starts)[i].is_number())
                firstStart = std::min(firstStart, (*starts)[i].get<double>());
        }
    }
    *sendTimes = starts != nullptr;
    for (std::size_t i = 0; i < n; ++i) {
        const QString at = QStringLiteral("[%1]").arg(i);
        RequestRecord r;
        r.id = qint64(i);
        QString error;
        if (errors && (*errors)[i].is_string())
            error = QString::fromStdString((*errors)[i].get<std::string>());
        else if (errors && !(*errors)[i].is_null())
            in.issue(QStringLiteral("errors%1: expected a string, got %2; taken as no error")
                         .arg(at, jsonTypeName((*errors)[i])));
        r.ok = error.isEmpty();
        const auto ttft = in.element((*ttfts)[i], QStringLiteral("ttfts") + at);
        const auto outLen = in.element((*outLens)[i], QStringLiteral("output_lens") + at);
        if (r.ok && (!ttft || !outLen || !(*itls)[i].is_array())) {
            if (ttft && outLen)
                in.issue(QStringLiteral("itls%1: expected an array, got %2; request skipped")
                             .arg(at, jsonTypeName((*itls)[i])));
            else
                in.issue(QStringLiteral("request %1 skipped: its ttft or output length is unreadable").arg(i));
            continue;
        }
        if (starts) {
            if (const auto start = in.element((*starts)[i], QStringLiteral("start_times") + at))
                r.tSendUs = micros(*start - firstStart);
        }
        r.tSchedUs = r.tSendUs;
        if (inLens) {
            if (const auto len = in.element((*inLens)[i], QStringLiteral("input_lens") + at))
                r.inTokens = countOf(*len);
        }
        if (!r.ok) {
            r.error = QStringLiteral("tool_error");
            r.errorDetail = error.left(kMaxDetailChars);
            records->push_back(std::move(r));
            continue;
        }
        r.status = 200;
        r.ttftUs = micros(*ttft);
        r.outTokens = countOf(*outLen);
        double sum = *ttft;
        bool gapsOk = true;
        for (std::size_t g = 0; g < (*itls)[i].size(); ++g) {
            const auto gap = in.element((*itls)[i][g], QStringLiteral("itls%1[%2]").arg(at).arg(g));
            if (!gap || *gap < 0) {
                gapsOk = false;
                break;
            }
            sum += *gap;
            r.itlUs.push_back(std::int32_t(std::min<qint64>(micros(*gap), std::numeric_limits<std::int32_t>::max())));
        }
        if (!gapsOk) {
            in.issue(QStringLiteral("itls%1: not a list of gaps in seconds; request skipped").arg(at));
            continue;
        }
        // vLLM's latency ends at the last token chunk (lib/endpoint_request_func.py:
        // latency = most_recent_timestamp - st), so ttft + sum(itl) is the same when
        // the file predates the `latencies` array.
        std::optional<double> latency;
        if (latencies)
            latency = in.element((*latencies)[i], QStringLiteral("latencies") + at);
        r.e2eUs = micros(latency ? *latency : sum);
        records->push_back(std::move(r));
    }
    return !records->empty();
}

} // namespace

bool looksLikeVllmResult(const nlohmann::json& object)
{
    if (!object.is_object() || !object.contains("request_throughput"))
        return false;
    return object.contains("completed") || object.contains("mean_ttft_ms") || object.contains("duration");
}

void importVllmResult(const nlohmann::json& o, qint64 line, const ImportSource& source, RunFile* out)
{
    std::vector<RunFileIssue>& issues = out->issues;
    FieldReader in(issues, line);
    const auto completed = in.number(o, "completed", QStringLiteral("completed"), Need::Expected);
    const auto failed = in.number(o, "failed", QStringLiteral("failed"), Need::Optional);
    const auto count = completed ? std::optional<int>(countOf(*completed)) : std::nullopt;
    const auto rps = in.number(o, "request_throughput", QStringLiteral("request_throughput"), Need::Expected);
    const auto goodput = in.number(o, "request_goodput", QStringLiteral("request_goodput"), Need::Optional);
    const auto outTps = in.number(o, "output_throughput", QStringLiteral("output_throughput"), Need::Expected);
    const int ok = count.value_or(0);
    const int errors = failed ? countOf(*failed) : 0;
    nlohmann::json summary = {
        { "requests", ok + errors },
        { "ok", ok },
        { "errors", errors },
        { "errors_by_reason", errors > 0 ? nlohmann::json { { "tool_error", errors } } : nlohmann::json::object() },
        { "error_details", nlohmann::json::object() },
        { "ttft_ms", percentileJson(vllmStats(in, o, "ttft", count)) },
        { "ttfc_ms", nullptr },
        { "tpot_ms", percentileJson(vllmStats(in, o, "tpot", std::nullopt)) },
        { "itl_ms", percentileJson(vllmStats(in, o, "itl", std::nullopt)) },
        { "e2e_ms", percentileJson(vllmStats(in, o, "e2el", count)) },
        { "schedule_lag_ms", nullptr },
        { "send_queue_ms", nullptr },
        { "req_per_s", rps.value_or(0.0) },
        { "out_tok_per_s", outTps.value_or(0.0) },
        { "goodput_req_per_s", goodput ? *goodput : rps.value_or(0.0) },
    };
    if (const auto duration = in.number(o, "duration", QStringLiteral("duration"), Need::Optional))
        summary["duration_s"] = *duration;
    const QString model = in.string(o, "model_id", QStringLiteral("model_id"), Need::Optional).value_or(QString());
    QString config = in.string(o, "label", QStringLiteral("label"), Need::Optional).value_or(QString());
    if (config.isEmpty())
        config = model.isEmpty() ? QStringLiteral("vllm") : model.section(QLatin1Char('/'), -1);
    ImportSource versioned = source;
    if (const auto version = in.string(o, "vllm_version", QStringLiteral("vllm_version"), Need::Optional))
        versioned.version = *version; // only when the user saved it with --metadata vllm_version=...
    std::vector<RequestRecord> records;
    bool sendTimes = true;
    readDetailed(in, o, &records, &sendTimes);
    addImportedRun(out, versioned, config, armOf(in, o), model, std::move(records), std::move(summary), sendTimes);
}

} // namespace ks
