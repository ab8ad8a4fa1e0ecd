#include "virtualload.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace kssim {

VirtualLoadResult runClosedLoop(const EngineConfig& config, const VirtualLoadSpec& load)
{
    BatchEngine engine(config);
    VirtualLoadResult result;
    struct Timing {
        std::int64_t sentUs = 0;
        std::int64_t firstUs = -1;
    };
    std::unordered_map<std::uint64_t, Timing> inFlight;
    std::uint64_t nextId = 1;
    std::int64_t nowUs = 0;

    std::deque<std::int64_t> arrivals; // times at which queued client requests reach the server
    auto send = [&](std::int64_t atUs) {
        SequenceSpec spec;
        spec.id = nextId++;
        spec.promptTokens = load.promptTokens;
        spec.outputTokens = load.outputTokens;
        spec.promptHash = spec.id * 0x9e3779b97f4a7c15ULL; // unique prompts: no prefix-cache hits
        engine.submit(spec);
        inFlight[spec.id] = { atUs, -1 };
    };

    for (int i = 0; i < std::min(load.concurrency, load.requests); ++i)
        send(0);
    int sent = std::min(load.concurrency, load.requests);
    int done = 0;
    while (!engine.idle() || !arrivals.empty()) {
        if (engine.idle())
            nowUs = std::max(nowUs, arrivals.front() + engine.config().idleWakeUs);
        while (!arrivals.empty() && arrivals.front() <= nowUs) {
            send(arrivals.front());
            arrivals.pop_front();
        }
        result.peakRunning = std::max(result.peakRunning, engine.runningCount());
        result.peakWaiting = std::max(result.peakWaiting, engine.waitingCount());
        const StepOutcome step = engine.step();
        nowUs += step.durationUs;
        for (const TokenEmission& e : step.emissions) {
            Timing& t = inFlight[e.id];
            if (e.tokenIndex == 0)
                t.firstUs = nowUs;
            if (!e.last)
                continue;
            const double ttft = double(t.firstUs - t.sentUs) / 1000.0;
            const double e2e = double(nowUs - t.sentUs) / 1000.0;
            result.ttftMs.push_back(ttft);
            result.e2eMs.push_back(e2e);
            if (load.outputTokens > 1)
                result.tpotMs.push_back((e2e - ttft) / double(load.outputTokens - 1));
            inFlight.erase(e.id);
            ++done;
            if (sent < load.requests) {
                arrivals.push_back(nowUs + load.clientDelayUs);
                ++sent;
            }
        }
    }
    const double seconds = double(nowUs) / 1e6;
    if (seconds > 0) {
        result.requestsPerSecond = double(done) / seconds;
        result.outputTokensPerSecond = double(done) * load.outputTokens / seconds;
    }
    return result;
}

double goodputOf(const VirtualLoadResult& result, double tpotSloMs, double ttftSloMs)
{
    if (result.tpotMs.empty())
        return 0;
    std::size_t met = 0;
    for (std::size_t i = 0; i < result.tpotMs.size(); ++i)
        met += result.tpotMs[i] <= tpotSloMs && (ttftSloMs <= 0 || result.ttftMs[i] <= ttftSloMs);
    return result.requestsPerSecond * double(met) / double(result.tpotMs.size());
}

} // namespace kssim
