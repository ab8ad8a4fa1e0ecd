#include "library/runtrend.h"

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

struct MetricField {
    const char* name;
    CatalogueFigure CatalogueArm::*figure;
};

const MetricField kFigures[] = {
    { "ttft_ms.p50", &CatalogueArm::ttftP50 },
    { "ttft_ms.p99", &CatalogueArm::ttftP99 },
    { "tpot_ms.p50", &CatalogueArm::tpotP50 },
    { "e2e_ms.p50", &CatalogueArm::e2eP50 },
};

// The z with P(Z > z) = tail, by bisection on erfc: exact to 1e-9, and no table to copy.
double upperNormalQuantile(double tail)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo + hi) / 2;
        (0.5 * std::erfc(mid / std::sqrt(2.0)) > tail ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

// A point on the log scale: its value and standard error (0 when it has no interval).
struct LogPoint {
    double x = 0;
    double se = 0;
};

std::optional<LogPoint> logPointOf(const TrendPoint& p)
{
    if (!p.figure.value || !(*p.figure.value > 0) || !std::isfinite(*p.figure.value))
        return std::nullopt;
    LogPoint out { std::log(*p.figure.value), 0 };
    if (p.figure.low && p.figure.high && *p.figure.low > 0 && *p.figure.high >= *p.figure.low
        && std::isfinite(*p.figure.high))
        out.se = (std::log(*p.figure.high) - std::log(*p.figure.low)) / (2 * 1.959964);
    return out;
}

} // namespace

QStringList trendMetrics()
{
    QStringList names;
    for (const MetricField& f : kFigures)
        names << QString::fromLatin1(f.name);
    names << QStringLiteral("req_per_s") << QStringLiteral("out_tok_per_s");
    return names;
}

CatalogueFigure trendFigureOf(const CatalogueArm& arm, const QString& metric)
{
    for (const MetricField& f : kFigures)
        if (metric == QLatin1String(f.name))
            return arm.*(f.figure);
    if (metric == QLatin1String("req_per_s"))
        return { arm.reqPerS, std::nullopt, std::nullopt };
    if (metric == QLatin1String("out_tok_per_s"))
        return { arm.outTokPerS, std::nullopt, std::nullopt };
    return {};
}

std::vector<TrendChange> trendChanges(
    const std::vector<TrendPoint>& points, const TrendOptions& options, double* threshold)
{
    std::vector<TrendChange> changes;
    std::vector<std::pair<int, LogPoint>> usable;
    for (int i = 0; i < int(points.size()); ++i)
        if (const auto p = logPointOf(points[std::size_t(i)]))
            usable.emplace_back(i, *p);
    const int looks = std::max(1, int(usable.size()) - 1);
    // Two-sided, Bonferroni over every point after the first: the whole series
    // cries wolf with probability at most alpha when nothing moved.
    const double z = upperNormalQuantile(options.alpha / (2.0 * looks));
    if (threshold)
        *threshold = z;
    // The scatter between runs beyond what their own intervals hold (run-to-run
    // drift), pooled over every level so far: the levels before a change still
    // say how much this configuration wanders. Unknown (0) until some level has two runs.
    double closedSs = 0, closedOwn = 0;
    int closedDf = 0, closedRuns = 0;
    std::size_t levelStart = 0;
    for (std::size_t k = 1; k < usable.size(); ++k) {
        const std::size_t n = k - levelStart;
        double mean = 0, ownVariance = 0;
        for (std::size_t i = levelStart; i < k; ++i) {
            mean += usable[i].second.x;
            ownVariance += usable[i].second.se * usable[i].second.se;
        }
        mean /= double(n);
        double ss = 0;
        for (std::size_t i = levelStart; i < k; ++i)
            ss += (usable[i].second.x - mean) * (usable[i].second.x - mean);
        const int df = closedDf + int(n) - 1;
        const double between = df > 0
            ? std::max(0.0, (closedSs + ss) / double(df) - (closedOwn + ownVariance) / double(closedRuns + int(n)))
            : 0.0;
        const LogPoint& next = usable[k].second;
        const double variance = next.se * next.se + between + ownVariance / double(n * n) + between / double(n);
        const double shift = next.x - mean;
        const double ratio = std::exp(shift);
        const double zShift
            = variance > 0 ? shift / std::sqrt(variance) : (shift == 0 ? 0 : std::copysign(HUGE_VAL, shift));
        // While no level has shown how far runs wander (one run each so far), a
        // move must clear twice the floor: nothing yet says the drift is small.
        const double floor = df > 0 ? options.minChange : 2 * options.minChange;
        if (std::abs(zShift) > z && std::abs(ratio - 1) >= floor) {
            changes.push_back({ usable[k].first, ratio, zShift });
            closedSs += ss;
            closedOwn += ownVariance;
            closedDf += int(n) - 1;
            closedRuns += int(n);
            levelStart = k;
        }
    }
    return changes;
}

RunTrend trendOf(const std::vector<CatalogueRow>& rows, const QString& spec, const QString& config, const QString& arm,
    const QString& metric, const TrendOptions& options)
{
    RunTrend trend;
    trend.spec = spec;
    trend.config = config;
    trend.arm = arm;
    trend.metric = metric;
    trend.minChange = options.minChange;
    std::vector<const CatalogueRow*> matches;
    for (const CatalogueRow& r : rows)
        if (r.file.specName == spec && r.arm.config == config && r.arm.arm == arm)
            matches.push_back(&r);
    std::stable_sort(matches.begin(), matches.end(), [](const CatalogueRow* a, const CatalogueRow* b) {
        return a->file.startedAt != b->file.startedAt ? a->file.startedAt < b->file.startedAt : a->id < b->id;
    });
    if (matches.empty())
        return trend;
    const QString shape = matches.back()->arm.armShape;
    for (const CatalogueRow* r : matches) {
        if (r->arm.armShape != shape) {
            trend.notes << QStringLiteral("@%1 (%2) left out: its arm ran another workload than the newest run's")
                               .arg(r->id)
                               .arg(r->file.startedAt);
            continue;
        }
        TrendPoint p;
        p.id = r->id;
        p.path = r->file.path;
        p.startedAt = r->file.startedAt;
        p.serverVersions = r->file.serverVersions;
        p.missing = r->missing;
        p.figure = trendFigureOf(r->arm, metric);
        p.intervalMethod = r->arm.intervalMethod;
        if (!p.figure.value || !std::isfinite(*p.figure.value)) {
            trend.notes << QStringLiteral("@%1 (%2) left out: no %3").arg(r->id).arg(r->file.startedAt, metric);
            continue;
        }
        trend.points.push_back(std::move(p));
    }
    trend.changes = trendChanges(trend.points, options, &trend.threshold);
    return trend;
}

} // namespace ks
