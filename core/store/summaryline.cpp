#include "store/summaryline.h"

#include "util/jsontake.h"

#include <cstdint>

namespace ks {

namespace {

// Each take() moves `key` out of `from` into `out` when its value has the
// field's type; otherwise the key stays where it is, as written (util/jsontake.h).
using jsontake::take;
using jsontake::takeObject;

void take(nlohmann::json& from, const char* key, std::optional<QStringList>& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !it->is_array())
        return;
    QStringList list;
    for (const nlohmann::json& item : *it) {
        if (!item.is_string())
            return;
        list << QString::fromStdString(item.get<std::string>());
    }
    out = std::move(list);
    from.erase(it);
}

void take(nlohmann::json& from, const char* key, std::optional<SummaryDistribution>& out)
{
    const auto it = from.find(key);
    if (it == from.end() || !it->is_object())
        return;
    SummaryDistribution d;
    d.rest = std::move(*it);
    from.erase(it);
    take(d.rest, "count", d.count);
    take(d.rest, "mean", d.mean);
    take(d.rest, "p50", d.p50);
    take(d.rest, "p90", d.p90);
    take(d.rest, "p95", d.p95);
    take(d.rest, "p99", d.p99);
    take(d.rest, "max", d.max);
    out = std::move(d);
}

template <class T> void put(nlohmann::json& to, const char* key, const std::optional<T>& value)
{
    if (value)
        to[key] = *value;
}

void put(nlohmann::json& to, const char* key, const std::optional<QString>& value)
{
    if (value)
        to[key] = value->toStdString();
}

void put(nlohmann::json& to, const char* key, const std::optional<QStringList>& value)
{
    if (!value)
        return;
    nlohmann::json list = nlohmann::json::array();
    for (const QString& s : *value)
        list.push_back(s.toStdString());
    to[key] = std::move(list);
}

void put(nlohmann::json& to, const char* key, const std::optional<SummaryDistribution>& value)
{
    if (!value)
        return;
    nlohmann::json d = value->rest;
    put(d, "count", value->count);
    put(d, "mean", value->mean);
    put(d, "p50", value->p50);
    put(d, "p90", value->p90);
    put(d, "p95", value->p95);
    put(d, "p99", value->p99);
    put(d, "max", value->max);
    to[key] = std::move(d);
}

void putObject(nlohmann::json& to, const char* key, const nlohmann::json& value)
{
    if (!value.is_null())
        to[key] = value;
}

} // namespace

bool RunSummary::clientBound() const
{
    return client.is_object() && client.value("client_bound", nlohmann::json()).is_boolean()
        && client["client_bound"].get<bool>();
}

int RunSummary::driftMismatches() const
{
    return drift.is_object() && drift.value("mismatches", nlohmann::json()).is_number_integer()
        ? drift["mismatches"].get<int>()
        : (drift.is_object() ? 0 : -1);
}

int RunSummary::driftProbes() const
{
    return drift.is_object() && drift.value("probes", nlohmann::json()).is_number_integer()
        ? drift["probes"].get<int>()
        : (drift.is_object() ? 0 : -1);
}

std::optional<SummaryDistribution> summaryDistributionFromJson(const nlohmann::json& d)
{
    nlohmann::json holder = { { "d", d } };
    std::optional<SummaryDistribution> out;
    take(holder, "d", out);
    return out;
}

nlohmann::json summaryDistributionToJson(const SummaryDistribution& d)
{
    nlohmann::json holder = nlohmann::json::object();
    put(holder, "d", std::optional<SummaryDistribution>(d));
    return holder["d"];
}

RunSummary runSummaryFromJson(nlohmann::json summary)
{
    RunSummary s;
    if (!summary.is_object()) {
        if (!summary.is_null())
            s.rest = std::move(summary);
        return s;
    }
    take(summary, "run", s.run);
    take(summary, "config", s.config);
    take(summary, "arm", s.arm);
    take(summary, "model", s.model);
    take(summary, "status", s.status);
    take(summary, "requests", s.requests);
    take(summary, "ok", s.ok);
    take(summary, "errors", s.errors);
    take(summary, "req_per_s", s.reqPerS);
    take(summary, "out_tok_per_s", s.outTokPerS);
    take(summary, "goodput_req_per_s", s.goodputReqPerS);
    take(summary, "ttft_ms", s.ttftMs);
    take(summary, "tpot_ms", s.tpotMs);
    take(summary, "itl_ms", s.itlMs);
    take(summary, "e2e_ms", s.e2eMs);
    take(summary, "gentle", s.gentle);
    take(summary, "interrupted", s.interrupted);
    take(summary, "warnings", s.warnings);
    takeObject(summary, "drift", s.drift);
    takeObject(summary, "sweep", s.sweep);
    takeObject(summary, "slo", s.slo);
    takeObject(summary, "client", s.client);
    s.rest = std::move(summary);
    return s;
}

nlohmann::json runSummaryToJson(const RunSummary& s)
{
    nlohmann::json j = s.rest;
    if (!j.is_object())
        return j; // not a summary object: kept as it came
    put(j, "run", s.run);
    put(j, "config", s.config);
    put(j, "arm", s.arm);
    put(j, "model", s.model);
    put(j, "status", s.status);
    put(j, "requests", s.requests);
    put(j, "ok", s.ok);
    put(j, "errors", s.errors);
    put(j, "req_per_s", s.reqPerS);
    put(j, "out_tok_per_s", s.outTokPerS);
    put(j, "goodput_req_per_s", s.goodputReqPerS);
    put(j, "ttft_ms", s.ttftMs);
    put(j, "tpot_ms", s.tpotMs);
    put(j, "itl_ms", s.itlMs);
    put(j, "e2e_ms", s.e2eMs);
    put(j, "gentle", s.gentle);
    put(j, "interrupted", s.interrupted);
    put(j, "warnings", s.warnings);
    putObject(j, "drift", s.drift);
    putObject(j, "sweep", s.sweep);
    putObject(j, "slo", s.slo);
    putObject(j, "client", s.client);
    return j;
}

} // namespace ks
