#include "compare/configruns.h"

#include "import/importedrun.h"
#include "metrics/repeatstats.h"

#include <cmath>

namespace ks {

nlohmann::json intervalJson(const Interval& i)
{
    return nlohmann::json::array({ i.low, i.high });
}

nlohmann::json runSummaryOf(const RunData& run, const QString& arm, const Slo& slo)
{
    if (isImported(run)) {
        nlohmann::json s = importedRunSummary(run, slo);
        s["arm"] = arm.toStdString();
        return s;
    }
    return summarizeRun(run.run, run.config, arm, run.requests, slo);
}

std::optional<double> statOf(const nlohmann::json& summary, const char* key, const char* stat)
{
    const auto metric = summary.find(key);
    if (metric == summary.end() || !metric->is_object())
        return std::nullopt;
    const auto value = metric->find(stat);
    return value != metric->end() && value->is_number() ? std::optional<double>(value->get<double>()) : std::nullopt;
}

void ConfigRuns::prepare()
{
    cut = {};
    for (const RunData* r : runs) {
        const SteadyCut c = isImported(*r) ? SteadyCut {} : steadyCutOf(*r);
        cut.requests += c.requests;
        cut.dropped += c.dropped;
        cut.settled = cut.settled && c.settled;
        steady.push_back(c.dropped > 0 ? &steadyCopies.emplace_back(steadyPart(*r, c)) : r);
    }
    if (runs.size() < 2)
        return;
    pooled.run = runs.front()->run;
    pooled.config = config;
    pooled.arm = runs.front()->arm;
    pooled.requests.setRun(pooled.run);
    for (const RunData* r : steady)
        for (const RequestRecord& record : r->requests)
            pooled.requests.push_back(record);
}

int roundOf(const RunData& run)
{
    for (const char* key : { "round", "repeat" })
        if (run.info.is_object() && run.info.value(key, nlohmann::json()).is_number_integer())
            return run.info[key].get<int>();
    return 1;
}

nlohmann::json summaryOf(const ConfigRuns& group, const QString& arm, const Slo& slo)
{
    nlohmann::json s = runSummaryOf(group.data(), arm, slo);
    static const char* const kRates[] = { "req_per_s", "out_tok_per_s", "goodput_req_per_s" };
    // A warm-up leaves the latencies; what was sent, what failed and how fast it
    // went are the runs' as they ran.
    if (group.cut.dropped > 0) {
        const nlohmann::json raw = rawSummaryOf(group, arm, slo);
        for (const char* key : { "requests", "ok", "errors", "errors_by_reason", "error_details" })
            if (raw.contains(key))
                s[key] = raw[key];
        if (group.runs.size() < 2)
            for (const char* key : kRates)
                if (raw.contains(key))
                    s[key] = raw[key];
    }
    if (group.runs.size() < 2)
        return s;
    for (const char* key : kRates) {
        double sum = 0;
        for (const RunData* r : group.runs)
            sum += summarizeRun(r->run, r->config, arm, r->requests, slo).value(key, 0.0);
        s[key] = sum / double(group.runs.size());
    }
    return s;
}

RepeatValues repeatValuesOf(const ConfigRuns& group, const QString& arm, const Slo& slo)
{
    RepeatValues out;
    out.runs = int(group.runs.size());
    if (out.runs < 2)
        return out;
    std::map<std::string, std::vector<double>> listed;
    nlohmann::json runs = nlohmann::json::array(), rounds = nlohmann::json::array();
    for (std::size_t i = 0; i < group.runs.size(); ++i) {
        const RunData* r = group.runs[i];
        const int round = roundOf(*r);
        runs.push_back(r->run.toStdString());
        rounds.push_back(round);
        const nlohmann::json s = summarizeRun(r->run, r->config, arm, group.steady[i]->requests, slo);
        for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" })
            for (const char* stat : { "p50", "p95", "p99" })
                if (s.value(key, nlohmann::json()).is_object() && s[key].value(stat, nlohmann::json()).is_number()) {
                    const std::string id = std::string(key) + '.' + stat;
                    out.values[id][round] = s[key][stat].get<double>();
                    listed[id].push_back(s[key][stat].get<double>());
                }
        listed["req_per_s"].push_back(summarizeRun(r->run, r->config, arm, r->requests, slo).value("req_per_s", 0.0));
    }
    nlohmann::json spread = nlohmann::json::object();
    auto describe = [](const std::vector<double>& v) {
        const RepeatSpread r = repeatSpread(v);
        return nlohmann::json { { "values", v }, { "mean", r.mean }, { "cv", r.cv },
            { "t_ci95", r.tCi95 ? intervalJson(*r.tCi95) : nlohmann::json(nullptr) } };
    };
    for (const auto& [id, v] : listed) {
        const auto dot = id.find('.');
        if (dot == std::string::npos)
            spread[id] = describe(v);
        else
            spread[id.substr(0, dot)][id.substr(dot + 1)] = describe(v);
    }
    out.json = { { "n", out.runs }, { "runs", runs }, { "rounds", rounds }, { "spread", spread } };
    return out;
}

std::pair<double, double> logSpread(const RoundValues& values)
{
    std::vector<double> v;
    for (const auto& [round, x] : values)
        if (x > 0)
            v.push_back(std::log(x));
    if (v.size() < 2)
        return { 0, 0 };
    return { repeatSpread(v).sd, double(v.size() - 1) };
}

nlohmann::json rawSummaryOf(const ConfigRuns& group, const QString& arm, const Slo& slo)
{
    if (group.runs.size() < 2)
        return runSummaryOf(group.rawData(), arm, slo);
    RunData pooled;
    pooled.run = group.runs.front()->run;
    pooled.config = group.config;
    pooled.arm = group.runs.front()->arm;
    pooled.requests.setRun(pooled.run);
    for (const RunData* r : group.runs)
        for (const RequestRecord& record : r->requests)
            pooled.requests.push_back(record);
    return runSummaryOf(pooled, arm, slo);
}

} // namespace ks
