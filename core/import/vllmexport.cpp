#include "import/vllmexport.h"

#include "import/importedrun.h"
#include "metrics/percentiles.h"

#include <QDateTime>

#include <cmath>
#include <numeric>

namespace ks {

namespace {

// mean, median, std (population, like numpy.std) and p50/p90/p95/p99 of one metric, in ms.
void putStats(nlohmann::json& out, const char* metric, std::vector<double> values)
{
    const std::string m = metric;
    if (values.empty()) {
        // vLLM writes zeros when it has no data (np.mean(values or 0)).
        for (const char* k : { "mean_", "median_", "std_", "p50_", "p90_", "p95_", "p99_" })
            out[k + m + "_ms"] = 0.0;
        return;
    }
    const PercentileSummary s = summarize(values);
    double sq = 0;
    for (double v : values)
        sq += (v - s.mean) * (v - s.mean);
    out["mean_" + m + "_ms"] = s.mean;
    out["median_" + m + "_ms"] = s.p50;
    out["std_" + m + "_ms"] = std::sqrt(sq / double(values.size()));
    out["p50_" + m + "_ms"] = s.p50;
    out["p90_" + m + "_ms"] = s.p90;
    out["p95_" + m + "_ms"] = s.p95;
    out["p99_" + m + "_ms"] = s.p99;
}

void putStoredStats(nlohmann::json& out, const char* metric, const nlohmann::json& stored)
{
    if (!stored.is_object())
        return;
    const std::string m = metric;
    for (const auto& [ours, theirs] :
        { std::pair { "mean", "mean_" }, std::pair { "p50", "median_" }, std::pair { "p50", "p50_" },
            std::pair { "p90", "p90_" }, std::pair { "p95", "p95_" }, std::pair { "p99", "p99_" } }) {
        const auto it = stored.find(ours);
        if (it != stored.end() && it->is_number())
            out[theirs + m + "_ms"] = it->get<double>();
    }
}

nlohmann::json armSetting(const nlohmann::json& experimentLine, const QString& arm)
{
    const nlohmann::json spec = experimentLine.is_object() ? experimentLine.value("spec", nlohmann::json()) : nullptr;
    if (!spec.is_object() || !spec.contains("arms") || !spec["arms"].is_array())
        return nullptr;
    for (const auto& a : spec["arms"]) {
        if (a.is_object() && a.value("name", std::string()) == arm.toStdString())
            return a;
    }
    return nullptr;
}

} // namespace

QString vllmResultFileName(const RunData& run)
{
    QString name = run.run;
    for (QChar& c : name) {
        if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != QLatin1Char('.') && c != QLatin1Char('-')
            && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    }
    return name + QStringLiteral(".json");
}

nlohmann::json toVllmResult(const RunData& run, const nlohmann::json& experimentLine)
{
    const std::string model = run.info.is_object() ? run.info.value("model", std::string()) : std::string();
    const nlohmann::json arm = armSetting(experimentLine, run.arm);
    nlohmann::json out = {
        { "date", QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")).toStdString() },
        { "endpoint_type", "openai" },
        { "backend", "openai" },
        { "label", run.config.toStdString() },
        { "model_id", model },
        { "tokenizer_id", model },
        { "num_prompts", nullptr },
        { "request_rate", "inf" },
        { "burstiness", 1.0 },
        { "max_concurrency", nullptr },
    };
    if (arm.is_object()) {
        if (arm.value("mode", std::string()) == "rate" && arm.contains("rate") && arm["rate"].is_number()) {
            out["request_rate"] = arm["rate"];
            if (arm.contains("burstiness") && arm["burstiness"].is_number())
                out["burstiness"] = arm["burstiness"];
        }
        if (arm.contains("concurrency") && arm["concurrency"].is_number())
            out["max_concurrency"] = arm["concurrency"];
    }
    if (isSummaryOnly(run)) {
        const nlohmann::json s = run.summary ? runSummaryToJson(*run.summary) : nlohmann::json::object();
        out["completed"] = s.value("ok", 0);
        out["failed"] = s.value("errors", 0);
        out["num_prompts"] = s.value("requests", 0);
        out["request_throughput"] = s.value("req_per_s", 0.0);
        out["request_goodput"] = nullptr;
        out["output_throughput"] = s.value("out_tok_per_s", 0.0);
        if (s.contains("duration_s"))
            out["duration"] = s["duration_s"];
        for (const auto& [metric, key] : { std::pair { "ttft", "ttft_ms" }, std::pair { "tpot", "tpot_ms" },
                 std::pair { "itl", "itl_ms" }, std::pair { "e2el", "e2e_ms" } })
            putStoredStats(out, metric, s.value(key, nlohmann::json()));
        return out;
    }
    std::vector<double> ttft, tpot, itl, e2e;
    nlohmann::json inputLens = nlohmann::json::array(), outputLens = nlohmann::json::array(),
                   ttfts = nlohmann::json::array(), itls = nlohmann::json::array(), latencies = nlohmann::json::array(),
                   starts = nlohmann::json::array(), errors = nlohmann::json::array(), texts = nlohmann::json::array();
    int completed = 0, failed = 0;
    qint64 totalIn = 0, totalOut = 0;
    qint64 firstSend = std::numeric_limits<qint64>::max(), lastEnd = std::numeric_limits<qint64>::min();
    for (const RequestRecord& r : run.requests) {
        if (r.warmup)
            continue;
        firstSend = std::min(firstSend, r.tSendUs);
        inputLens.push_back(r.inTokens);
        starts.push_back(double(r.tSendUs) / 1e6);
        texts.push_back("");
        if (!r.ok) {
            ++failed;
            outputLens.push_back(0);
            ttfts.push_back(0.0);
            itls.push_back(nlohmann::json::array());
            latencies.push_back(0.0);
            const QString error = r.errorDetail.isEmpty() ? r.error : r.error + QStringLiteral(": ") + r.errorDetail;
            errors.push_back(error.isEmpty() ? std::string("error") : error.toStdString());
            continue;
        }
        ++completed;
        totalIn += r.inTokens;
        totalOut += r.outTokens;
        lastEnd = std::max(lastEnd, r.tSendUs + r.e2eUs);
        outputLens.push_back(r.outTokens);
        ttfts.push_back(double(std::max<qint64>(r.ttftUs, 0)) / 1e6);
        nlohmann::json gaps = nlohmann::json::array();
        for (std::int32_t g : r.itlUs) {
            gaps.push_back(double(g) / 1e6);
            itl.push_back(double(g) / 1000.0);
        }
        itls.push_back(gaps);
        latencies.push_back(double(r.e2eUs) / 1e6);
        errors.push_back("");
        if (r.ttftUs >= 0)
            ttft.push_back(double(r.ttftUs) / 1000.0);
        if (const double t = r.tpotUs(); t >= 0)
            tpot.push_back(t / 1000.0);
        e2e.push_back(double(r.e2eUs) / 1000.0);
    }
    const double duration = completed > 0 ? double(lastEnd - firstSend) / 1e6 : 0.0;
    out["num_prompts"] = completed + failed;
    out["duration"] = duration;
    out["completed"] = completed;
    out["failed"] = failed;
    out["total_input_tokens"] = totalIn;
    out["total_output_tokens"] = totalOut;
    out["request_throughput"] = duration > 0 ? completed / duration : 0.0;
    out["request_goodput"] = nullptr;
    out["output_throughput"] = duration > 0 ? double(totalOut) / duration : 0.0;
    out["total_token_throughput"] = duration > 0 ? double(totalIn + totalOut) / duration : 0.0;
    out["input_lens"] = inputLens;
    out["output_lens"] = outputLens;
    out["ttfts"] = ttfts;
    out["itls"] = itls;
    out["latencies"] = latencies;
    out["start_times"] = starts;
    out["generated_texts"] = texts;
    out["errors"] = errors;
    putStats(out, "ttft", ttft);
    putStats(out, "tpot", tpot);
    putStats(out, "itl", itl);
    putStats(out, "e2el", e2e);
    return out;
}

} // namespace ks
