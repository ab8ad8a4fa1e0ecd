// Cost of one live snapshot (Aggregator::snapshot) at the load of 1024 streams:
// 10 s window, ~40 tokens/s per stream, 64-token requests. The dashboard takes
// up to 10 snapshots a second, so this is the live path's per-tick price.
#include "metrics/aggregator.h"

#include <chrono>
#include <cstdio>

int main()
{
    ks::Aggregator agg(10.0);
    const int requests = 6400; // 1024 streams x 10 s / 1.6 s per 64-token request
    for (int i = 0; i < requests; ++i) {
        ks::RequestRecord r;
        r.id = i;
        r.tSendUs = qint64(i) * 1560;
        r.ttftUs = 100'000 + (i * 7919) % 50'000;
        r.e2eUs = r.ttftUs + 63 * 25'000;
        r.outTokens = 64;
        r.ok = true;
        r.itlUs.assign(63, 0);
        for (int k = 0; k < 63; ++k)
            r.itlUs[std::size_t(k)] = 20'000 + (i * 31 + k * 977) % 10'000;
        agg.add(r);
    }
    const qint64 now = qint64(requests) * 1560 + 2'000'000;
    agg.snapshot(now); // first call merges the cumulative arrays
    constexpr int kRounds = 20;
    const auto start = std::chrono::steady_clock::now();
    ks::RunSnapshot s;
    for (int i = 0; i < kRounds; ++i)
        s = agg.snapshot(now);
    const double ms
        = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kRounds;
    std::printf("window ITL values %d, cumulative %d: %.2f ms per snapshot (%.0f %% of a core at 10 Hz)\n",
        s.itlWindowMs.count, s.itlMs.count, ms, ms * 10 / 10);
    return 0;
}
