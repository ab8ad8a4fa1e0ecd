#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

/// One latency distribution of a summary (`ttft_ms`, `tpot_ms`, `itl_ms`,
/// `e2e_ms`): its count and figures in milliseconds.
struct SummaryDistribution {
    std::optional<qint64> count;
    std::optional<double> mean, p50, p90, p95, p99, max;
    nlohmann::json rest = nlohmann::json::object(); ///< keys this version does not name, as written
};

/// A run's summary (the `summary` line without its "type", or what the runner
/// sends when the run ends) with named fields for what the dashboard and the
/// terminal read. It is built once where the JSON is (runSummaryFromJson) and
/// crosses threads as a value. Every key it does not name stays in `rest`, and
/// so does a named key whose value has another type than expected (its field
/// stays empty), so runSummaryToJson(runSummaryFromJson(j)) == j exactly, also
/// for a line from a newer version.
struct RunSummary {
    std::optional<QString> run, config, arm, model;
    std::optional<QString> status; ///< completed, stopped, server_exited
    std::optional<qint64> requests, ok, errors;
    std::optional<double> reqPerS, outTokPerS, goodputReqPerS;
    std::optional<SummaryDistribution> ttftMs, tpotMs, itlMs, e2eMs;
    std::optional<bool> gentle; ///< the arm never made the server queue (armverdicts.h)
    std::optional<bool> interrupted;
    std::optional<QStringList> warnings;
    /// Objects named as a whole: `drift` (probe passes), `sweep` (a sweep's
    /// step), `slo`, `client` (the load generator's own load); null when absent.
    nlohmann::json drift, sweep, slo, client;
    nlohmann::json rest = nlohmann::json::object(); ///< every other key, as written

    QString statusText() const { return status.value_or(QStringLiteral("completed")); }
    /// p50 of a distribution, -1 when the summary has none.
    static double p50Of(const std::optional<SummaryDistribution>& d) { return d && d->p50 ? *d->p50 : -1.0; }
    bool clientBound() const;
    /// Probe outputs that changed and probes compared (`drift`); -1 without a drift object.
    int driftMismatches() const;
    int driftProbes() const;
};

/// One distribution object (`ttft_ms` of a summary); nullopt when `d` is not an object.
std::optional<SummaryDistribution> summaryDistributionFromJson(const nlohmann::json& d);
nlohmann::json summaryDistributionToJson(const SummaryDistribution& d);

/// The one reader of a summary object (anything else: an empty summary whose `rest` holds it).
RunSummary runSummaryFromJson(nlohmann::json summary);
/// The one writer: the summary object again, named fields and `rest` together.
nlohmann::json runSummaryToJson(const RunSummary& summary);

} // namespace ks

Q_DECLARE_METATYPE(ks::RunSummary)
