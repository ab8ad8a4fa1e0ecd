#include "compare/comparisonwriter.h"

#include <functional>

namespace ks {

namespace {

using json = nlohmann::json;

// Named fields never overwrite `rest`: a key still there was of another type, and goes back as written.
void put(json& to, const char* key, json value)
{
    if (!to.contains(key))
        to[key] = std::move(value);
}

json text(const QString& s)
{
    return s.toStdString();
}

json nullable(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

// The grid of one field of every statistic; `field` gives the cell's JSON, or nothing.
json writeGrid(const ComparedConfig& c, const std::function<std::optional<json>(const ComparedStat&)>& field)
{
    json out = json::object();
    for (LatencyMetric m : kLatencyMetrics)
        for (LatencyStat s : kLatencyStats)
            if (std::optional<json> v = field(c.stat(m, s)))
                out[latencyKey(m)][statKey(s)] = std::move(*v);
    return out;
}

json runToRunJson(const RunToRun& r)
{
    json out = { { "measured", r.measured }, { "method", text(r.method) }, { "rounds", r.rounds },
        { "confidence", r.confidence }, { "intervals", r.intervals }, { "paired", r.paired },
        { "note", text(r.note) } };
    if (r.calibration)
        out["calibration"] = { { "file", text(r.calibration->file) }, { "date", text(r.calibration->date) },
            { "runs", r.calibration->runs }, { "config", text(r.calibration->config) } };
    return out;
}

void putNumber(json& to, const char* key, const std::optional<double>& v)
{
    if (v)
        put(to, key, *v);
}

// The five figures `reasoning_tools` and its `ratio` both have, by the same names.
template <typename Figures> void putPerRequest(json& to, const Figures& f)
{
    putNumber(to, "reasoning_tokens_per_request", f.reasoningTokens);
    putNumber(to, "answer_tokens_per_request", f.answerTokens);
    putNumber(to, "tool_call_events_per_request", f.toolCallEvents);
    putNumber(to, "tool_calls_per_request", f.toolCalls);
    putNumber(to, "reasoning_share", f.reasoningShare);
}

json reasoningFiguresJson(const ReasoningFigures& f)
{
    json j = f.rest;
    putPerRequest(j, f);
    putNumber(j, "ok", f.ok);
    if (f.itlNoTools)
        put(j, "itl_ms_no_tools", summaryDistributionToJson(*f.itlNoTools));
    if (f.ratio) {
        const ReasoningFigures::Ratios& r = *f.ratio;
        json ratio = r.rest;
        putPerRequest(ratio, r);
        if (r.itlNoToolsP50 || r.itlNoToolsP99) {
            json itl = json::object();
            putNumber(itl, "p50", r.itlNoToolsP50);
            putNumber(itl, "p99", r.itlNoToolsP99);
            put(ratio, "itl_ms_no_tools", std::move(itl));
        }
        put(j, "ratio", std::move(ratio));
    }
    return j;
}

json repeatFiguresJson(const RepeatFigures& r)
{
    auto spreadJson = [](const RoundsSpread& s) {
        return json { { "values", s.values }, { "mean", s.mean }, { "cv", s.cv },
            { "t_ci95", s.tCi95 ? json::array({ s.tCi95->low, s.tCi95->high }) : json(nullptr) } };
    };
    json spread = json::object();
    for (LatencyMetric m : kLatencyMetrics)
        for (LatencyStat s : kLatencyStats)
            if (const auto& figure = r.spread(m, s))
                spread[latencyKey(m)][statKey(s)] = spreadJson(*figure);
    if (r.reqPerS)
        spread["req_per_s"] = spreadJson(*r.reqPerS);
    json runs = json::array();
    for (const QString& run : r.runs)
        runs.push_back(text(run));
    return { { "n", r.n }, { "runs", std::move(runs) }, { "rounds", r.rounds }, { "spread", std::move(spread) } };
}

json diagnosisJson(const Diagnosis& d)
{
    return { { "kind", text(d.kind) }, { "text", text(d.text) } };
}

void putDistributions(json& to, const LatencyDistributions& d)
{
    for (LatencyMetric m : kLatencyMetrics) {
        const auto& v = d[std::size_t(m)];
        put(to, latencyKey(m), v ? summaryDistributionToJson(*v) : json(nullptr));
    }
}

} // namespace

nlohmann::json comparedConfigToJson(const ComparedConfig& c)
{
    json j = c.rest;
    if (!j.is_object())
        return j; // not a configuration object: kept as it came
    put(j, "config", text(c.config));
    put(j, "run", text(c.run));
    put(j, "knobs", c.knobs);
    if (c.model)
        put(j, "model", text(*c.model));
    putDistributions(j, c.latency);
    json ci = writeGrid(c, [](const ComparedStat& s) -> std::optional<json> {
        return s.ci ? std::optional<json>(json::array({ s.ci->low, s.ci->high })) : std::nullopt;
    });
    if (!c.ciMethod.isEmpty())
        ci["method"] = text(c.ciMethod);
    put(j, "ci95", std::move(ci));
    json ratio = writeGrid(c, [](const ComparedStat& s) -> std::optional<json> {
        return s.ratio ? std::optional<json>(*s.ratio) : std::nullopt;
    });
    for (const auto& [key, value] : { std::pair { "req_per_s", &c.reqPerSRatio },
             std::pair { "out_tok_per_s", &c.outTokPerSRatio }, std::pair { "goodput_req_per_s", &c.goodputRatio } })
        if (*value)
            ratio[key] = **value;
    put(j, "ratio", std::move(ratio));
    json ratioCi = writeGrid(c, [](const ComparedStat& s) -> std::optional<json> {
        return s.ratioCi ? std::optional<json>(json::array({ s.ratioCi->low, s.ratioCi->high })) : std::nullopt;
    });
    if (!c.ratioCiMethod.isEmpty())
        ratioCi["method"] = text(c.ratioCiMethod);
    put(j, "ratio_ci95", std::move(ratioCi));
    put(j, "significant", writeGrid(c, [](const ComparedStat& s) -> std::optional<json> {
        return s.significant ? std::optional<json>(*s.significant) : std::nullopt;
    }));
    if (json within = writeGrid(c,
            [](const ComparedStat& s) -> std::optional<json> {
                return s.withinRunSignificant ? std::optional<json>(*s.withinRunSignificant) : std::nullopt;
            });
        !within.empty())
        put(j, "within_run_significant", std::move(within));
    json needed = writeGrid(c, [](const ComparedStat& s) -> std::optional<json> {
        if (!s.roundsNeededSaid)
            return std::nullopt;
        return s.roundsNeeded ? json(*s.roundsNeeded) : json(nullptr);
    });
    if (c.roundsNeededFor)
        needed["for"] = *c.roundsNeededFor;
    if (!needed.empty())
        put(j, "rounds_needed", std::move(needed));
    if (c.runToRun)
        put(j, "run_to_run", runToRunJson(*c.runToRun));
    if (c.steady)
        put(j, "steady",
            { { "method", text(c.steady->method) }, { "dropped", c.steady->dropped },
                { "requests", c.steady->requests }, { "settled", c.steady->settled } });
    if (c.raw) {
        json raw = json::object();
        putDistributions(raw, *c.raw);
        put(j, "raw", std::move(raw));
    }
    if (c.summaryOnly)
        put(j, "summary_only", true);
    put(j, "req_per_s", c.reqPerS);
    put(j, "out_tok_per_s", c.outTokPerS);
    put(j, "goodput_req_per_s", c.goodputReqPerS);
    put(j, "requests", c.requests);
    put(j, "errors", c.errors);
    put(j, "error_rate", c.errorRate);
    if (c.clientBound)
        put(j, "client_bound", true);
    put(j, "waiting_share", nullable(c.waitingShare));
    put(j, "gentle", c.gentle);
    put(j, "max_waiting", nullable(c.maxWaiting));
    if (c.specAcceptance)
        put(j, "spec_acceptance", *c.specAcceptance);
    if (c.specMeanAccepted)
        put(j, "spec_mean_accepted", *c.specMeanAccepted);
    if (c.workloadDiffers) {
        put(j, "workload", c.workload);
        put(j, "workload_differs", *c.workloadDiffers);
    }
    if (c.why)
        put(j, "why", diagnosisJson(*c.why));
    if (c.reasoningTools)
        put(j, "reasoning_tools", reasoningFiguresJson(*c.reasoningTools));
    for (const auto& [key, value] :
        { std::pair { "ttft_split_ms", &c.ttftSplitMs }, std::pair { "images", &c.images } })
        if (!value->is_null())
            put(j, key, *value);
    if (c.repeats)
        put(j, "repeats", repeatFiguresJson(*c.repeats));
    return j;
}

nlohmann::json comparedArmToJson(const ComparedArm& a)
{
    json j = a.rest;
    if (!j.is_object())
        return j;
    put(j, "arm", text(a.arm));
    put(j, "baseline", text(a.baseline));
    put(j, "gentle", a.gentle);
    json configs = json::array();
    for (const ComparedConfig& c : a.configs)
        configs.push_back(comparedConfigToJson(c));
    put(j, "configs", std::move(configs));
    if (a.sweepArm)
        put(j, "sweep_arm", text(*a.sweepArm));
    if (a.slo)
        put(j, "slo", { { "ttft_ms", a.slo->ttftMs }, { "tpot_ms", a.slo->tpotMs } });
    if (a.differentWorkloads)
        put(j, "different_workloads", true);
    if (a.note)
        put(j, "note", text(*a.note));
    if (a.warning)
        put(j, "warning", text(*a.warning));
    if (!a.unsettled.isEmpty()) {
        json list = json::array();
        for (const QString& config : a.unsettled)
            list.push_back(text(config));
        put(j, "unsettled", std::move(list));
    }
    if (a.why)
        put(j, "why", diagnosisJson(*a.why));
    if (!a.sweep.is_null())
        put(j, "sweep", a.sweep);
    if (!a.search.is_null())
        put(j, "search", a.search);
    return j;
}

nlohmann::json comparisonToJson(const Comparison& comparison)
{
    json out = json::array();
    for (const ComparedArm& arm : comparison)
        out.push_back(comparedArmToJson(arm));
    return out;
}

} // namespace ks
