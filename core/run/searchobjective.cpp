#include "run/searchobjective.h"

#include "compare/requestseries.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/sweepcapacity.h"

#include <algorithm>
#include <random>

namespace ks {

namespace {

constexpr int kResamples = 1000;

// The 2.5 % and 97.5 % points of the mean of `w` over moving-block resamples,
// as ratios to its mean (1 when the mean is 0).
Interval meanRatioInterval(const std::vector<double>& w, std::size_t block, quint64 seed)
{
    const std::size_t n = w.size();
    double sum = 0;
    for (double v : w)
        sum += v;
    if (n == 0 || sum <= 0)
        return { 1, 1 };
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> start(0, n - 1);
    std::vector<double> means;
    means.reserve(kResamples);
    for (int k = 0; k < kResamples; ++k) {
        double s = 0;
        std::size_t taken = 0;
        while (taken < n) {
            const std::size_t from = start(rng);
            for (std::size_t j = 0; j < block && taken < n; ++j, ++taken)
                s += w[(from + j) % n]; // circular
        }
        means.push_back(s / sum);
    }
    return { percentile(means, 2.5), percentile(means, 97.5) };
}

// Each ok request's share of a rate objective, in send order, and the run's block length.
std::vector<double> shares(const RunData& run, const QString& objective, const Slo& slo, std::size_t* block)
{
    std::vector<std::pair<qint64, double>> sent;
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
        sent.push_back({ r.tSendUs, w });
        busyUs += double(r.e2eUs);
        first = std::min(first, r.tSendUs);
        last = std::max(last, r.tSendUs + r.e2eUs);
    }
    std::stable_sort(sent.begin(), sent.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> w;
    for (const auto& s : sent)
        w.push_back(s.second);
    *block = blockLength(w.size(), last > first ? busyUs / double(last - first) : 1.0);
    return w;
}

void rateObjective(
    SearchProbe& probe, const SearchSpec& search, const Slo& slo, const std::vector<const RunData*>& runs)
{
    double value = 0, low = 0, high = 0;
    int counted = 0;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const RunData& run = *runs[k];
        const nlohmann::json s = summarizeRun(run.run, run.config, run.arm, run.requests, slo);
        const double v = s.value(search.objective.toStdString(), 0.0);
        if (s.value("ok", 0) <= 0)
            continue;
        std::size_t block = 1;
        const Interval ratio = meanRatioInterval(shares(run, search.objective, slo, &block), block, 1 + k);
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
