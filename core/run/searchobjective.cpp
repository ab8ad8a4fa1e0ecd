#include "run/searchobjective.h"

#include "compare/requestseries.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/sweepcapacity.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

namespace {

constexpr int kResamples = 1000; // the latency bootstrap's, as compare's

// Batch means: the run's span cut into equal windows, each window's rate of
// the objective (its requests' shares, by completion time); the interval is
// the windows' mean ± t * sd / sqrt(windows), as a ratio to that mean. It
// sees the rate's own spread (waves of a closed loop), not only the shares'.
Interval batchMeansRatio(const RunData& run, const QString& objective, const Slo& slo)
{
    std::vector<std::pair<qint64, double>> done; // completion time, share
    qint64 first = std::numeric_limits<qint64>::max(), last = std::numeric_limits<qint64>::min();
    for (std::size_t i = 0; i < run.requests.size(); ++i) {
        const RequestTimes r = run.requests.times(i);
        if (!r.ok || r.warmup)
            continue;
        double w = 1;
        if (objective == QLatin1String("out_tok_per_s")) {
            w = r.outTokens;
        } else if (objective == QLatin1String("goodput_req_per_s")) {
            const double tpotMs = r.tpotUs() / 1000.0;
            const bool ttftOk = slo.ttftMs <= 0 || (r.ttftUs >= 0 && double(r.ttftUs) / 1000.0 <= slo.ttftMs);
            const bool tpotOk = slo.tpotMs <= 0 || tpotMs < 0 || tpotMs <= slo.tpotMs;
            w = ttftOk && tpotOk ? 1 : 0;
        }
        done.push_back({ r.tSendUs + r.e2eUs, w });
        first = std::min(first, r.tSendUs);
        last = std::max(last, r.tSendUs + r.e2eUs);
    }
    // Student's t at 97.5 % for 1 to 9 degrees of freedom.
    static const double kT[] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262 };
    const std::size_t windows = std::min<std::size_t>(10, done.size() / 4);
    if (windows < 2 || last <= first)
        return { 1, 1 };
    std::vector<double> sums(windows, 0.0);
    const double width = double(last - first) / double(windows);
    for (const auto& [t, w] : done)
        sums[std::min(windows - 1, std::size_t(double(t - first) / width))] += w;
    double mean = 0;
    for (double v : sums)
        mean += v;
    mean /= double(windows);
    if (mean <= 0)
        return { 1, 1 };
    double var = 0;
    for (double v : sums)
        var += (v - mean) * (v - mean);
    var /= double(windows - 1);
    const double half = kT[windows - 2] * std::sqrt(var / double(windows)) / mean;
    return { std::max(0.0, 1 - half), 1 + half };
}

void rateObjective(
    SearchProbe& probe, const SearchSpec& search, const Slo& slo, const std::vector<const RunData*>& runs)
{
    double value = 0, low = 0, high = 0;
    int counted = 0;
    for (const RunData* each : runs) {
        const RunData& run = *each;
        const nlohmann::json s = summarizeRun(run.run, run.config, run.arm, run.requests, slo);
        const double v = s.value(search.objective.toStdString(), 0.0);
        if (s.value("ok", 0) <= 0)
            continue;
        const Interval ratio = batchMeansRatio(run, search.objective, slo);
        value += v;
        low += v * ratio.low;
        high += v * ratio.high;
        ++counted;
    }
    if (counted == 0) {
        probe.why = QStringLiteral("no completed requests");
        return;
    }
    probe.objective = value / counted;
    probe.low = low / counted;
    probe.high = high / counted;
}

void latencyObjective(
    SearchProbe& probe, const SearchSpec& search, const Slo& slo, const std::vector<const RunData*>& runs)
{
    const auto [metric, stat] = search.latencyObjective();
    std::vector<double> values;
    std::size_t block = 1;
    for (const RunData* run : runs) {
        for (const Series& series : seriesOf(*run)) {
            if (metric != QLatin1String(series.key))
                continue;
            values.insert(values.end(), series.values.begin(), series.values.end());
            block = std::max(block, series.block);
        }
    }
    if (values.empty()) {
        probe.why = QStringLiteral("no %1 values").arg(metric);
        return;
    }
    const double p = stat.mid(1).toDouble();
    const double ps[] = { p };
    const Interval ci = bootstrapIntervals({}, values, ps, kResamples, 1, 0.95, 1, block).other[0];
    probe.objective = percentile(values, p);
    probe.low = ci.low;
    probe.high = ci.high;
    const double limit = metric == QLatin1String("ttft_ms") ? slo.ttftMs
        : metric == QLatin1String("tpot_ms")                ? slo.tpotMs
                                                            : 0;
    if (limit > 0 && *probe.objective > limit)
        probe.why = QStringLiteral("%1 %2 %3 ms > the SLO's %4 ms")
                        .arg(metric, stat)
                        .arg(*probe.objective, 0, 'f', 1)
                        .arg(limit);
}

void capacityObjective(SearchProbe& probe, const Slo& slo, const std::vector<const RunData*>& runs)
{
    std::vector<SweepPoint> points;
    for (const RunData* run : runs)
        if (run->summary.is_object())
            if (auto point = sweepPoint(run->summary, slo))
                points.push_back(*point);
    const std::optional<double> capacity = sweepCapacity(points);
    if (!capacity) {
        probe.why = QStringLiteral("no sweep step within the SLO");
        return;
    }
    double next = *capacity;
    for (const SweepPoint& p : points)
        if (p.value && *p.value > *capacity && (next == *capacity || *p.value < next))
            next = *p.value;
    probe.objective = *capacity;
    probe.low = *capacity;
    probe.high = next;
}

} // namespace

SearchProbe searchObjective(const SearchSpec& search, const Slo& slo, const std::vector<const RunData*>& runs)
{
    SearchProbe probe;
    if (search.objective == QLatin1String("capacity"))
        capacityObjective(probe, slo, runs);
    else if (!search.latencyObjective().first.isEmpty())
        latencyObjective(probe, search, slo, runs);
    else
        rateObjective(probe, search, slo, runs);
    if (!probe.objective && probe.why.isEmpty())
        probe.why = QStringLiteral("no figure");
    probe.feasible = probe.objective.has_value() && probe.why.isEmpty();
    return probe;
}

} // namespace ks
