#pragma once

#include "load/loadrunner.h"
#include "metrics/runsummary.h"
#include "progressreporter.h"
#include "store/jsonlwriter.h"

#include <functional>
#include <vector>

inline constexpr int kExitInterrupted = 130; // 128 + SIGINT, as shells report it

struct ArmOutcome {
    std::vector<ks::RequestRecord> records;
    ks::LoadResult result;
    bool interrupted = false;
    QString error;
    QString fileError; ///< a write or flush of the run file failed; the arm stopped there
};

/// Runs one arm to completion in a local event loop: records go to `writer`
/// (flushed per batch, at most every 100 ms) as they arrive; Ctrl-C or SIGTERM
/// stops it cleanly, cancelling in-flight requests, and a second one exits at
/// once (130) with the file as it is. A failed write stops the arm the same
/// way. `onStarted` runs once the connections are open and the clock starts
/// (t0 on the monotonic clock).
ArmOutcome executeArm(const ks::LoadSpec& spec, ks::JsonlWriter* writer, ProgressReporter& progress,
    const std::function<void(qint64 t0Us)>& onStarted = {});
