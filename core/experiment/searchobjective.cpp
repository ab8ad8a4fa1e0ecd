#include "experiment/searchobjective.h"

#include "compare/requestseries.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/sweepcapacity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace ks {

namespace {

constexpr int kResamples = 1000; // the latency bootstrap's, as compare's

// A moving-block bootstrap of the rate through Little's law: a loop of
// streams completes requests at (streams) / (mean time per request), so the
// rate of the objective moves with sum(share) / sum(e2e) over its requests
// (share: 1 if it met the SLO, 1, or its output tokens). Requests in send
// order, blocks of one generation of concurrent requests (compare's rule);
// returns the 2.5 % and 97.5 % points as ratios to the run's own value.
Interval rateRatioInterval(const RunData& run, const QString& objective, const Slo& slo, quint64 seed)
{
    struct Done {
        qint64 sent;
        double share;
        double e2e;
    };
    std::vector<Done> done;
    double busyUs = 0;
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
        done.push_back({ r.tSendUs, w, double(std::max<qint64>(r.e2eUs, 1)) });
        busyUs += double(r.e2eUs);
        first = std::min(first, r.tSendUs);
        last = std::max(last, r.tSendUs + r.e2eUs);
    }
    const std::size_t n = done.size();
    double shares = 0, times = 0;
    for (const Done& d : done) {
        shares += d.share;
        times += d.e2e;
    }
    if (n < 2 || shares <= 0)
        return { 1, 1 };
    std::stable_sort(done.begin(), done.end(), [](const Done& a, const Done& b) { return a.sent < b.sent; });
    const std::size_t block = blockLength(n, last > first ? busyUs / double(last - first) : 1.0);
    const double value = shares / times;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> start(0, n - 1);
    std::vector<double> ratios;
    ratios.reserve(kResamples);
    for (int k = 0; k < kResamples; ++k) {
        double w = 0, t = 0;
        for (std::size_t taken = 0; taken < n;) {
            const std::size_t from = start(rng);
            for (std::size_t j = 0; j < block && taken < n; ++j, ++taken) {
                const Done& d = done[(from + j) % n]; // circular
                w += d.share;
                t += d.e2e;
            }
        }
        ratios.push_back(w / t / value);
    }
    return { percentile(ratios, 2.5), percentile(ratios, 97.5) };
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
        const Interval ratio = rateRatioInterval(run, search.objective, slo, quint64(1 + counted));
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
        if (run->summary)
            if (auto point = sweepPoint(runSummaryToJson(*run->summary), slo))
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
