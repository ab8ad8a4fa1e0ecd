// Prints what an ideal, zero-overhead client would measure against each
// simulator profile under the stress and gentle arms, on the engine's virtual
// clock. This is the calibration table in docs/simulator.md.
#include "metrics/percentiles.h"
#include "virtualload.h"

#include <cstdio>

using namespace kssim;

namespace {

struct Row {
    const char* profile;
    int maxNumSeqs;
    VirtualLoadSpec load;
    const char* arm;
};

void printRow(const Row& row)
{
    EngineConfig cfg;
    cfg.profile = *findProfile(QString::fromLatin1(row.profile));
    cfg.maxNumSeqs = row.maxNumSeqs;
    cfg.maxNumBatchedTokens = cfg.profile.defaultMaxBatchedTokens;
    cfg.kvCacheTokens = cfg.profile.kvCacheTokens;
    const VirtualLoadResult r = runClosedLoop(cfg, row.load);
    const auto ttft = ks::summarize(r.ttftMs);
    const auto tpot = ks::summarize(r.tpotMs);
    std::printf("%-14s %4d %-8s c=%-3d n=%-4d | TTFT p50 %8.1f p95 %8.1f p99 %8.1f ms | TPOT p50 %5.1f p99 %5.1f ms | "
                "%6.2f req/s %7.0f tok/s | peak run %3d wait %3d\n",
        row.profile, row.maxNumSeqs, row.arm, row.load.concurrency, row.load.requests, ttft.p50, ttft.p95, ttft.p99,
        tpot.p50, tpot.p99, r.requestsPerSecond, r.outputTokensPerSecond, r.peakRunning, r.peakWaiting);
}

} // namespace

int main()
{
    const VirtualLoadSpec stress { 64, 256, 128, 256, 2000 };
    const VirtualLoadSpec gentle { 4, 64, 128, 128, 2000 };
    const Row rows[] = {
        { "sim-8b", 32, stress, "stress" },
        { "sim-8b", 128, stress, "stress" },
        { "sim-1.8b", 128, stress, "stress" },
        { "sim-reasoning", 128, stress, "stress" },
        { "sim-8b", 32, gentle, "fixed" },
        { "sim-8b", 128, gentle, "fixed" },
    };
    for (const Row& row : rows)
        printRow(row);
    return 0;
}
