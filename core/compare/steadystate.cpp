#include "compare/steadystate.h"

#include <algorithm>
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
    std::stable_sort(
        rows.begin(), rows.end(), [&t](std::size_t a, std::size_t b) { return t.times(a).tSendUs < t.times(b).tSendUs; });
    return rows;
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
    // batches left make the score unstable). A series still moving at its end
    // keeps gaining from a later start, so its minimum lands on the bound.
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
    if (best == last) {
        cut.settled = false; // still moving at the end: nothing steady to keep
        return cut;
    }
    cut.dropped = best * kBatch;
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
