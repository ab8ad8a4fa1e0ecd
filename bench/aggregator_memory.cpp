// Memory of the live Aggregator over a long run: an hour at 300
// requests a second, 64 tokens each, one snapshot per 100 ms of run time (the
// runner's cadence). Prints RSS every simulated minute and the growth after the
// first; the Aggregator alone, without the runner's own record vector.
// Not a test: it prints numbers.
//
//   aggregator_memory [minutes=60] [requests_per_s=300]
#include "metrics/aggregator.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

double rssMiB()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            double kb = 0;
            status >> kb;
            return kb / 1024.0;
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const int minutes = argc > 1 ? std::atoi(argv[1]) : 60;
    const int rate = argc > 2 ? std::atoi(argv[2]) : 300;
    ks::Aggregator agg(10.0);
    const qint64 gapUs = 1'000'000 / rate;
    const qint64 tickUs = 100'000;
    qint64 nextTick = tickUs;
    double atMinuteOne = 0;
    qint64 id = 0;
    for (int minute = 1; minute <= minutes; ++minute) {
        for (int i = 0; i < rate * 60; ++i, ++id) {
            ks::RequestRecord r;
            r.id = id;
            r.tSendUs = r.tSchedUs = id * gapUs;
            r.ttftUs = 100'000 + (id * 7919) % 50'000;
            r.itlUs.resize(63);
            for (int k = 0; k < 63; ++k)
                r.itlUs[std::size_t(k)] = std::int32_t(20'000 + (id * 31 + k * 977) % 10'000);
            r.e2eUs = r.ttftUs + 63 * 25'000;
            r.outTokens = 64;
            r.ok = true;
            agg.add(r);
            const qint64 now = r.tSendUs + r.e2eUs;
            while (now >= nextTick) {
                agg.snapshot(nextTick);
                nextTick += tickUs;
            }
        }
        const double rss = rssMiB();
        if (minute == 1)
            atMinuteOne = rss;
        if (minute == 1 || minute % 10 == 0 || minute == minutes)
            std::printf("minute %3d: %8lld requests, RSS %.1f MiB\n", minute, static_cast<long long>(id), rss);
    }
    const ks::RunSnapshot s = agg.snapshot(nextTick);
    std::printf("growth after the first minute: %+.1f %% (%d ITL values counted, %d in the window)\n",
        (rssMiB() - atMinuteOne) / atMinuteOne * 100, s.itlMs.count, s.itlWindowMs.count);
    return 0;
}
