#pragma once

#include "batchengine.h"

#include <vector>

namespace kssim {

/// A closed-loop load (fixed concurrency, fixed request count) played against a
/// BatchEngine on virtual time: what an ideal client with zero overhead would
/// measure. Used to calibrate profiles (bench/sim_predict) and in engine tests.
struct VirtualLoadSpec {
    int concurrency = 64;
    int requests = 256;
    int promptTokens = 128;
    int outputTokens = 256;
    /// Time from a response's last token to the client's next request reaching
    /// the server. Any real client needs some; it makes the next request miss the
    /// step that starts at once, which splits arrival waves across prefill steps.
    std::int64_t clientDelayUs = 2000;
};

struct VirtualLoadResult {
    std::vector<double> ttftMs;
    std::vector<double> tpotMs;
    std::vector<double> e2eMs;
    double requestsPerSecond = 0;
    double outputTokensPerSecond = 0;
    int peakRunning = 0;
    int peakWaiting = 0;
};

VirtualLoadResult runClosedLoop(const EngineConfig& config, const VirtualLoadSpec& load);

/// Requests per second that met the SLO (TPOT at most `tpotSloMs`; TTFT at most `ttftSloMs` when above 0).
double goodputOf(const VirtualLoadResult& result, double tpotSloMs, double ttftSloMs = 0);

} // namespace kssim
