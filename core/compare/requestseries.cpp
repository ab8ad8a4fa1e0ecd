#include "compare/requestseries.h"

#include "metrics/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace ks {

namespace {

// Every `stride`-th of `count` values, as the bootstrap's sample.
std::vector<double> strided(std::size_t count, const auto& valueAt)
{
    std::vector<double> out;
    const std::size_t n = std::min(count, kMaxBootstrapValues);
    out.reserve(n);
    const double stride = double(count) / double(n);
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(valueAt(count <= kMaxBootstrapValues ? i : std::size_t(double(i) * stride)));
    return out;
}

} // namespace

std::vector<Series> seriesOf(const RunData& run)
{
    const RequestTable& t = run.requests;
    std::vector<double> ttft, tpot, e2e;
    std::vector<std::span<const std::int32_t>> gaps;
    std::size_t gapCount = 0;
    double busyUs = 0;
    qint64 firstSend = std::numeric_limits<qint64>::max(), lastEnd = std::numeric_limits<qint64>::min();
    for (std::size_t i = 0; i < t.size(); ++i) {
        const RequestTimes r = t.times(i);
        if (!r.ok || r.warmup)
            continue;
        if (r.ttftUs >= 0)
            ttft.push_back(double(r.ttftUs) / 1000.0);
        if (const double v = r.tpotUs(); v >= 0)
            tpot.push_back(v / 1000.0);
        e2e.push_back(double(r.e2eUs) / 1000.0);
        busyUs += double(r.e2eUs);
        firstSend = std::min(firstSend, r.tSendUs);
        lastEnd = std::max(lastEnd, r.tSendUs + r.e2eUs);
        const std::span<const std::int32_t> g = t.itl(i);
        if (!g.empty())
            gaps.push_back(g);
        gapCount += g.size();
    }
    // The ITL sample strides over the gaps in place: a long run holds millions.
    std::vector<double> itl;
    {
        std::size_t part = 0, before = 0;
        itl = strided(gapCount, [&](std::size_t k) {
            while (k >= before + gaps[part].size())
                before += gaps[part++].size();
            return double(gaps[part][k - before]) / 1000.0;
        });
    }
    // Requests that ran at once share the engine's state: a block holds at least
    // one such generation, counted in each series' own values (an ITL series has
    // a request's gaps together; a strided sample keeps every stride-th value).
    const std::size_t requests = e2e.size();
    const double concurrency = lastEnd > firstSend ? busyUs / double(lastEnd - firstSend) : 1.0;
    const std::size_t blockRequests = blockLength(requests, concurrency);
    auto blockOf = [&](std::size_t count, std::size_t sampled) -> std::size_t {
        if (requests == 0 || sampled == 0)
            return 1;
        const double perRequest = double(count) / double(requests);
        const double stride = double(count) / double(sampled);
        return std::max<std::size_t>(1, std::size_t(std::lround(double(blockRequests) * perRequest / stride)));
    };
    auto sample = [](const std::vector<double>& v) { return strided(v.size(), [&](std::size_t k) { return v[k]; }); };
    std::vector<Series> out { { "ttft_ms", sample(ttft) }, { "tpot_ms", sample(tpot) }, { "itl_ms", std::move(itl) },
        { "e2e_ms", sample(e2e) } };
    const std::size_t counts[] = { ttft.size(), tpot.size(), gapCount, e2e.size() };
    for (std::size_t m = 0; m < out.size(); ++m)
        out[m].block = blockOf(counts[m], out[m].values.size());
    return out;
}

} // namespace ks
