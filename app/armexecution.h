#pragma once

#include "load/loadrunner.h"
#include "metrics/runsummary.h"
#include "progressreporter.h"
#include "store/jsonlwriter.h"

#include <functional>
#include <vector>

struct ArmOutcome {
    std::vector<ks::RequestRecord> records;
    ks::LoadResult result;
    bool interrupted = false;
    QString error;
};

/// Runs one arm to completion in a local event loop: records go to `writer`
/// (flushed per batch, at most every 100 ms) as they arrive; Ctrl-C or SIGTERM
/// stops it cleanly, cancelling in-flight requests. `onStarted` runs once the
/// connections are open and the clock starts (t0 on the monotonic clock).
ArmOutcome executeArm(const ks::LoadSpec& spec, ks::JsonlWriter* writer, ProgressReporter& progress,
    const std::function<void(qint64 t0Us)>& onStarted = {});
