#include "compare/steadystate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ks {

namespace {

constexpr std::size_t kBatch = 5;
constexpr std::size_t kMinValues = 20; // four batches: fewer say nothing about a trend

// The indices of a run's ok, non-warm-up requests with a TTFT, by send time.
std::vector<std::size_t> timedRequests(const RequestTable& t)
{
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const RequestTimes r = t.times(i);
        if (r.ok && !r.warmup && r.ttftUs >= 0)
            rows.push_back(i);
    }
    std::stable_sort(rows.begin(), rows.end(),
        [&t](std::size_t a, std::size_t b) { return t.times(a).tSendUs < t.times(b).tSendUs; });
    return rows;
}

constexpr double kTrendZ = 3.09; // the standard normal's 99.9th percentile

constexpr std::size_t kMostTrendPoints = 400; // Kendall's test is quadratic: a long run's means are merged

double kendallZ(std::vector<double> m)
{
    if (m.size() > kMostTrendPoints) {
        std::vector<double> merged(kMostTrendPoints, 0.0);
        std::vector<int> counts(kMostTrendPoints, 0);
        for (std::size_t i = 0; i < m.size(); ++i) {
            const std::size_t g = i * kMostTrendPoints / m.size();
            merged[g] += m[i];
            ++counts[g];
        }
        for (std::size_t g = 0; g < kMostTrendPoints; ++g)
            merged[g] /= counts[g];
        m = std::move(merged);
    }
    const std::size_t k = m.size();
    if (k < 4)
        return 0;
    double s = 0;
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = i + 1; j < k; ++j)
            s += (m[j] > m[i]) - (m[j] < m[i]);
    const double variance = double(k) * double(k - 1) * double(2 * k + 5) / 18.0;
    return s / std::sqrt(variance);
}

constexpr double kMaterialRise = 0.10;

// The mean of the last third over the mean of the first third, minus 1.
double riseOf(const std::vector<double>& m)
{
    const std::size_t third = m.size() / 3;
    if (third == 0)
        return 0;
    double first = 0, last = 0;
    for (std::size_t i = 0; i < third; ++i) {
        first += m[i];
        last += m[m.size() - 1 - i];
    }
    return first > 0 ? last / first - 1.0 : 0.0;
}

// Whether the first `d` batch means stand apart from the rest: their mean more
// than two standard errors (the rest's spread over sqrt(d)) from the rest's mean.
bool headDiffers(const std::vector<double>& means, std::size_t d)
{
    const std::size_t n = means.size() - d;
    if (n < 2)
        return true;
    double head = 0, mean = 0, ss = 0;
    for (std::size_t i = 0; i < d; ++i)
        head += means[i] / double(d);
    for (std::size_t i = d; i < means.size(); ++i)
        mean += means[i] / double(n);
    for (std::size_t i = d; i < means.size(); ++i)
        ss += (means[i] - mean) * (means[i] - mean);
    const double sd = std::sqrt(ss / double(n - 1));
    return std::abs(head - mean) > 2 * sd / std::sqrt(double(d));
}

} // namespace

SteadyCut mser5(const std::vector<double>& values)
{
    SteadyCut cut;
    cut.requests = values.size();
    if (values.size() < kMinValues)
        return cut;
    const std::size_t k = values.size() / kBatch;
    std::vector<double> means(k);
    for (std::size_t b = 0; b < k; ++b)
        means[b] = std::accumulate(values.begin() + std::ptrdiff_t(b * kBatch),
                       values.begin() + std::ptrdiff_t((b + 1) * kBatch), 0.0)
            / double(kBatch);
    // Suffix sums give every candidate's mean and squared error in one pass.
    std::vector<double> sum(k + 1, 0.0), sumSq(k + 1, 0.0);
    for (std::size_t b = k; b-- > 0;) {
        sum[b] = sum[b + 1] + means[b];
        sumSq[b] = sumSq[b + 1] + means[b] * means[b];
    }
    // Starts up to the middle are candidates (MSER's usual bound: past it the few
    // batches left make the score unstable).
    const std::size_t last = k / 2;
    std::size_t best = 0;
    double bestScore = 0;
    for (std::size_t d = 0; d <= last; ++d) {
        const double n = double(k - d);
        const double mean = sum[d] / n;
        const double squaredError = std::max(0.0, sumSq[d] - n * mean * mean);
        const double score = squaredError / (n * n);
        if (d == 0 || score < bestScore) {
            best = d;
            bestScore = score;
        }
    }
    // MSER also cuts a few batches off a series that has no warm-up at all (a
    // heavy-tailed TTFT's early batches happen to run high): keep them unless
    // they differ from the rest by more than twice their standard error.
    if (best > 0 && !headDiffers(means, best))
        best = 0;
    cut.dropped = best * kBatch;
    // Still growing after the cut: a queue that builds to the end of the run.
    // Kendall's trend test over the batch means kept, one-sided at 0.1 %, so
    // that a steady run is called unsettled about once in a thousand; and a
    // rise of at least kMaterialRise from the first third kept to the last, since
    // a steady closed loop's last requests run a few percent slower as its batch
    // empties, which the test alone finds in a long, quiet run.
    const std::vector<double> kept(means.begin() + std::ptrdiff_t(best), means.end());
    cut.settled = !(kendallZ(kept) > kTrendZ && riseOf(kept) >= kMaterialRise);
    return cut;
}

SteadyCut steadyCutOf(const RunData& run)
{
    const std::vector<std::size_t> rows = timedRequests(run.requests);
    std::vector<double> ttft;
    ttft.reserve(rows.size());
    for (const std::size_t i : rows)
        ttft.push_back(double(run.requests.times(i).ttftUs));
    return mser5(ttft);
}

RunData steadyPart(const RunData& run, const SteadyCut& cut)
{
    if (cut.dropped == 0)
        return run;
    const std::vector<std::size_t> rows = timedRequests(run.requests);
    std::vector<bool> drop(run.requests.size(), false);
    for (std::size_t j = 0; j < cut.dropped && j < rows.size(); ++j)
        drop[rows[j]] = true;
    RunData out;
    out.run = run.run;
    out.config = run.config;
    out.arm = run.arm;
    out.info = run.info;
    out.summary = run.summary;
    out.requests.setRun(run.run);
    std::size_t i = 0;
    for (RequestRecord record : run.requests) {
        if (drop[i++])
            record.warmup = true;
        out.requests.push_back(record);
    }
    return out;
}

} // namespace ks
