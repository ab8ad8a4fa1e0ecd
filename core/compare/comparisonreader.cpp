#include "compare/comparisonreader.h"

#include "util/jsontake.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>

namespace ks {

namespace {

using json = nlohmann::json;

// Each take() moves `key` out of `from` into `out` when its value has the
// field's type; otherwise the key stays in `from` (the entry's `rest`), as
// written, and the writer puts it back unchanged. Strings, booleans and objects
// as util/jsontake.h reads them; numbers below also read a value they keep.

template <typename T> bool take(json& from, const char* key, T& out)
{
    return jsontake::take(from, key, out);
}

using jsontake::isInt64;
using jsontake::takeObject;

// A float is read (NaN and beyond int64 are not) and kept as written.
bool take(json& from, const char* key, qint64& out)
{
    if (jsontake::take(from, key, out))
        return true;
    const auto it = from.find(key);
    if (it != from.end() && it->is_number_float() && std::abs(it->get<double>()) < 9e18)
        out = qint64(it->get<double>());
    return false;
}

// A double field reads any number, but takes only a JSON double: an integer
// written back as a double would change the text, so it also stays as written.
bool take(json& from, const char* key, double& out)
{
    if (jsontake::take(from, key, out))
        return true;
    const auto it = from.find(key);
    if (it != from.end() && it->is_number())
        out = it->get<double>();
    return false;
}

bool take(json& from, const char* key, std::optional<double>& out)
{
    double value = 0;
    const bool taken = take(from, key, value);
    if (taken || from.value(key, json()).is_number())
        out = value;
    return taken;
}

// A nullable double (`waiting_share`): null is empty and taken.
bool takeNullable(json& from, const char* key, std::optional<double>& out)
{
    const auto it = from.find(key);
    if (it != from.end() && it->is_null()) {
        out.reset();
        from.erase(it);
        return true;
    }
    return take(from, key, out);
}

// `key` parsed by `parse` from its value; erased from `from` only when `parse` accepts it all.
bool takeWith(json& from, const char* key, const std::function<bool(const json&)>& parse)
{
    const auto it = from.find(key);
    if (it == from.end() || !parse(*it))
        return false;
    from.erase(it);
    return true;
}

// `key`'s array, each element read by `read` (false at the first it refuses);
// erased from `from` only when every element was read.
template <typename Read> bool takeArray(json& from, const char* key, Read read)
{
    return takeWith(from, key, [&](const json& a) { return a.is_array() && std::all_of(a.begin(), a.end(), read); });
}

std::optional<Interval> intervalOf(const json& v)
{
    if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
        return std::nullopt;
    return Interval { v[0].get<double>(), v[1].get<double>() };
}

// An object of latency metrics, each an object of statistics, each read by `cell`; `extra`
// takes a top-level key that is not a metric (`method`, a rate's ratio). False at the first
// thing neither accepts.
bool parseGrid(const json& grid, const std::function<bool(LatencyMetric, LatencyStat, const json&)>& cell,
    const std::function<bool(const std::string&, const json&)>& extra)
{
    if (!grid.is_object())
        return false;
    for (const auto& [key, value] : grid.items()) {
        const std::optional<LatencyMetric> metric = latencyMetricOf(key);
        if (!metric) {
            if (!extra(key, value))
                return false;
            continue;
        }
        if (!value.is_object())
            return false;
        for (const auto& [statName, v] : value.items()) {
            const std::optional<LatencyStat> stat = latencyStatOf(statName);
            if (!stat || !cell(*metric, *stat, v))
                return false;
        }
    }
    return true;
}

// A grid's `method`.
bool methodOf(const std::string& key, const json& v, QString& out)
{
    if (key != "method" || !v.is_string())
        return false;
    out = QString::fromStdString(v.get<std::string>());
    return true;
}

bool noExtra(const std::string&, const json&)
{
    return false;
}

std::optional<RunToRun> runToRunOf(const json& v)
{
    if (!v.is_object())
        return std::nullopt;
    json rest = v;
    RunToRun r;
    take(rest, "measured", r.measured);
    take(rest, "method", r.method);
    take(rest, "rounds", r.rounds);
    take(rest, "confidence", r.confidence);
    take(rest, "intervals", r.intervals);
    take(rest, "paired", r.paired);
    take(rest, "note", r.note);
    if (json cal; takeObject(rest, "calibration", cal)) {
        CalibrationCitation c;
        take(cal, "file", c.file);
        take(cal, "date", c.date);
        take(cal, "config", c.config);
        take(cal, "runs", c.runs);
        if (!cal.empty())
            return std::nullopt;
        r.calibration = c;
    }
    return rest.empty() ? std::optional(r) : std::nullopt;
}

// The five figures `reasoning_tools` and its `ratio` both have, by the same names.
template <typename Figures> void takePerRequest(json& from, Figures& f)
{
    take(from, "reasoning_tokens_per_request", f.reasoningTokens);
    take(from, "answer_tokens_per_request", f.answerTokens);
    take(from, "tool_call_events_per_request", f.toolCallEvents);
    take(from, "tool_calls_per_request", f.toolCalls);
    take(from, "reasoning_share", f.reasoningShare);
}

// `ratio` inside `reasoning_tools`; what it does not name stays in its own `rest`.
bool reasoningRatiosOf(const json& v, ReasoningFigures::Ratios& r)
{
    if (!v.is_object())
        return false;
    json rest = v;
    takePerRequest(rest, r);
    takeWith(rest, "itl_ms_no_tools", [&](const json& itl) {
        if (!itl.is_object())
            return false;
        json stats = itl;
        take(stats, "p50", r.itlNoToolsP50);
        take(stats, "p99", r.itlNoToolsP99);
        return stats.empty();
    });
    r.rest = std::move(rest);
    return true;
}

// `reasoning_tools`: any object; what it does not name stays in its own `rest`.
bool reasoningFiguresOf(const json& v, std::optional<ReasoningFigures>& out)
{
    if (!v.is_object())
        return false;
    json rest = v;
    ReasoningFigures f;
    takePerRequest(rest, f);
    take(rest, "ok", f.ok);
    takeWith(
        rest, "itl_ms_no_tools", [&](const json& d) { return bool(f.itlNoTools = summaryDistributionFromJson(d)); });
    takeWith(rest, "ratio", [&](const json& r) {
        ReasoningFigures::Ratios ratios;
        if (!reasoningRatiosOf(r, ratios))
            return false;
        f.ratio = std::move(ratios);
        return true;
    });
    f.rest = std::move(rest);
    out = std::move(f);
    return true;
}

// An interval of two JSON doubles (integers would not be written back as they came).
bool floatIntervalOf(const json& v, std::optional<Interval>& out)
{
    if (!v.is_array() || v.size() != 2 || !v[0].is_number_float() || !v[1].is_number_float())
        return false;
    out = Interval { v[0].get<double>(), v[1].get<double>() };
    return true;
}

// One figure of `repeats.spread`: all four fields, or nothing.
std::optional<RoundsSpread> roundsSpreadOf(const json& v)
{
    if (!v.is_object())
        return std::nullopt;
    json rest = v;
    RoundsSpread s;
    bool whole = jsontake::take(rest, "mean", s.mean);
    whole = jsontake::take(rest, "cv", s.cv) && whole;
    whole = takeArray(rest, "values", [&](const json& x) {
        if (x.is_number_float())
            s.values.push_back(x.get<double>());
        return x.is_number_float();
    }) && whole;
    whole
        = takeWith(rest, "t_ci95", [&](const json& t) { return t.is_null() || floatIntervalOf(t, s.tCi95); }) && whole;
    return whole && rest.empty() ? std::optional(std::move(s)) : std::nullopt;
}

// `repeats`, whole or not at all.
bool repeatFiguresOf(const json& v, std::optional<RepeatFigures>& out)
{
    if (!v.is_object())
        return false;
    json rest = v;
    RepeatFigures r;
    bool whole = jsontake::take(rest, "n", r.n);
    whole = takeArray(rest, "runs", [&](const json& run) {
        if (run.is_string())
            r.runs << QString::fromStdString(run.get<std::string>());
        return run.is_string();
    }) && whole;
    whole = takeArray(rest, "rounds", [&](const json& round) {
        if (isInt64(round))
            r.rounds.push_back(round.get<qint64>());
        return isInt64(round);
    }) && whole;
    whole = takeWith(rest, "spread", [&](const json& spread) {
        return parseGrid(
            spread,
            [&](LatencyMetric m, LatencyStat s, const json& cell) {
                return bool(r.spread(m, s) = roundsSpreadOf(cell));
            },
            [&](const std::string& key, const json& cell) {
                return key == "req_per_s" && (r.reqPerS = roundsSpreadOf(cell));
            });
    }) && whole;
    if (!whole || !rest.empty())
        return false;
    out = std::move(r);
    return true;
}

std::optional<Diagnosis> diagnosisOf(const json& v)
{
    if (!v.is_object() || v.size() != 2 || !v.value("kind", json()).is_string() || !v.value("text", json()).is_string())
        return std::nullopt;
    return Diagnosis { QString::fromStdString(v["kind"].get<std::string>()),
        QString::fromStdString(v["text"].get<std::string>()) };
}

// The four latency objects of a summary (`ttft_ms`, ... or `raw`), each an object or null.
bool takeDistributions(json& from, LatencyDistributions& out)
{
    bool all = true;
    for (LatencyMetric m : kLatencyMetrics)
        all = takeWith(from, latencyKey(m), [&](const json& v) {
            if (v.is_null())
                return true;
            out[std::size_t(m)] = summaryDistributionFromJson(v);
            return out[std::size_t(m)].has_value();
        }) && all;
    return all;
}

} // namespace

ComparedConfig comparedConfigFromJson(const nlohmann::json& entry)
{
    ComparedConfig c;
    if (!entry.is_object()) {
        c.rest = entry;
        return c;
    }
    json rest = entry;
    take(rest, "config", c.config);
    take(rest, "run", c.run);
    takeObject(rest, "knobs", c.knobs);
    take(rest, "model", c.model);
    takeDistributions(rest, c.latency);
    takeWith(rest, "ci95", [&](const json& grid) {
        return parseGrid(
            grid, [&](LatencyMetric m, LatencyStat s, const json& v) { return bool(c.stat(m, s).ci = intervalOf(v)); },
            [&](const std::string& key, const json& v) { return methodOf(key, v, c.ciMethod); });
    });
    takeWith(rest, "ratio_ci95", [&](const json& grid) {
        return parseGrid(
            grid,
            [&](LatencyMetric m, LatencyStat s, const json& v) { return bool(c.stat(m, s).ratioCi = intervalOf(v)); },
            [&](const std::string& key, const json& v) { return methodOf(key, v, c.ratioCiMethod); });
    });
    takeWith(rest, "ratio", [&](const json& grid) {
        return parseGrid(
            grid,
            [&](LatencyMetric m, LatencyStat s, const json& v) {
                if (!v.is_number_float())
                    return false;
                c.stat(m, s).ratio = v.get<double>();
                return true;
            },
            [&](const std::string& key, const json& v) {
                std::optional<double>* rate = key == "req_per_s" ? &c.reqPerSRatio
                    : key == "out_tok_per_s"                     ? &c.outTokPerSRatio
                    : key == "goodput_req_per_s"                 ? &c.goodputRatio
                                                                 : nullptr;
                if (!rate || !v.is_number_float())
                    return false;
                *rate = v.get<double>();
                return true;
            });
    });
    for (const auto& [key, field] : { std::pair { "significant", &ComparedStat::significant },
             std::pair { "within_run_significant", &ComparedStat::withinRunSignificant } })
        takeWith(rest, key, [&, field = field](const json& grid) {
            return parseGrid(
                grid,
                [&](LatencyMetric m, LatencyStat s, const json& v) {
                    if (!v.is_boolean())
                        return false;
                    c.stat(m, s).*field = v.get<bool>();
                    return true;
                },
                noExtra);
        });
    takeWith(rest, "rounds_needed", [&](const json& grid) {
        return parseGrid(
            grid,
            [&](LatencyMetric m, LatencyStat s, const json& v) {
                if (!v.is_null() && !isInt64(v))
                    return false;
                c.stat(m, s).roundsNeededSaid = true;
                if (!v.is_null())
                    c.stat(m, s).roundsNeeded = v.get<int>();
                return true;
            },
            [&](const std::string& key, const json& v) {
                if (key != "for" || !v.is_number_float())
                    return false;
                c.roundsNeededFor = v.get<double>();
                return true;
            });
    });
    takeWith(rest, "run_to_run", [&](const json& v) { return bool(c.runToRun = runToRunOf(v)); });
    takeWith(rest, "steady", [&](const json& v) {
        if (!v.is_object())
            return false;
        json s = v;
        SteadyTrim t;
        take(s, "method", t.method);
        take(s, "dropped", t.dropped);
        take(s, "requests", t.requests);
        take(s, "settled", t.settled);
        if (!s.empty())
            return false;
        c.steady = t;
        return true;
    });
    takeWith(rest, "raw", [&](const json& v) {
        if (!v.is_object())
            return false;
        json r = v;
        LatencyDistributions raw;
        if (!takeDistributions(r, raw) || !r.empty())
            return false;
        c.raw = raw;
        return true;
    });
    takeWith(rest, "summary_only", [&](const json& v) { return v == true && (c.summaryOnly = true); });
    take(rest, "req_per_s", c.reqPerS);
    take(rest, "out_tok_per_s", c.outTokPerS);
    take(rest, "goodput_req_per_s", c.goodputReqPerS);
    take(rest, "requests", c.requests);
    take(rest, "errors", c.errors);
    take(rest, "error_rate", c.errorRate);
    takeWith(rest, "client_bound", [&](const json& v) { return v == true && (c.clientBound = true); });
    takeNullable(rest, "waiting_share", c.waitingShare);
    takeNullable(rest, "max_waiting", c.maxWaiting);
    take(rest, "gentle", c.gentle);
    take(rest, "spec_acceptance", c.specAcceptance);
    take(rest, "spec_mean_accepted", c.specMeanAccepted);
    // `workload` comes with `workload_differs`: a run line's `prompts`, null before knobscope recorded them.
    if (take(rest, "workload_differs", c.workloadDiffers))
        takeWith(rest, "workload", [&](const json& v) {
            c.workload = v;
            return true;
        });
    takeWith(rest, "why", [&](const json& v) { return bool(c.why = diagnosisOf(v)); });
    takeWith(rest, "reasoning_tools", [&](const json& v) { return reasoningFiguresOf(v, c.reasoningTools); });
    takeObject(rest, "ttft_split_ms", c.ttftSplitMs);
    takeObject(rest, "images", c.images);
    takeWith(rest, "repeats", [&](const json& v) { return repeatFiguresOf(v, c.repeats); });
    c.rest = std::move(rest);
    return c;
}

ComparedArm comparedArmFromJson(const nlohmann::json& arm)
{
    ComparedArm a;
    if (!arm.is_object()) {
        a.rest = arm;
        return a;
    }
    json rest = arm;
    take(rest, "arm", a.arm);
    take(rest, "baseline", a.baseline);
    take(rest, "gentle", a.gentle);
    takeWith(rest, "configs", [&](const json& v) {
        if (!v.is_array())
            return false;
        for (const json& entry : v)
            a.configs.push_back(comparedConfigFromJson(entry));
        return true;
    });
    take(rest, "sweep_arm", a.sweepArm);
    takeWith(rest, "slo", [&](const json& v) {
        if (!v.is_object() || v.size() != 2 || !v.value("ttft_ms", json()).is_number_float()
            || !v.value("tpot_ms", json()).is_number_float())
            return false;
        a.slo = Slo { v["ttft_ms"].get<double>(), v["tpot_ms"].get<double>() };
        return true;
    });
    takeWith(rest, "different_workloads", [&](const json& v) { return v == true && (a.differentWorkloads = true); });
    take(rest, "note", a.note);
    take(rest, "warning", a.warning);
    takeWith(rest, "unsettled", [&](const json& v) {
        if (!v.is_array() || v.empty())
            return false;
        for (const json& name : v) {
            if (!name.is_string())
                return a.unsettled.clear(), false;
            a.unsettled << QString::fromStdString(name.get<std::string>());
        }
        return true;
    });
    takeWith(rest, "why", [&](const json& v) { return bool(a.why = diagnosisOf(v)); });
    takeObject(rest, "sweep", a.sweep);
    takeObject(rest, "search", a.search);
    a.rest = std::move(rest);
    return a;
}

Comparison comparisonFromJson(const nlohmann::json& arms)
{
    Comparison out;
    if (!arms.is_array())
        return out;
    for (const json& arm : arms)
        out.push_back(comparedArmFromJson(arm));
    return out;
}

} // namespace ks
