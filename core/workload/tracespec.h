#pragma once

#include "workload/tracereader.h"

#include <QString>

#include <memory>

namespace ks {

/// A trace arm's `trace` object (docs/experiments.md, "Trace replay"): which
/// file, how fast, which window. The index is read when the spec is checked.
struct TraceSpec {
    QString path;
    TraceIndex::Format format = TraceIndex::Format::Mooncake;
    double speed = 1.0; ///< 2.0 sends the trace twice as fast
    double startS = 0; ///< window start, trace seconds
    double durationS = 0; ///< window length, trace seconds; 0: to the end
    std::shared_ptr<const TraceIndex> index;

    /// Send times (µs from the arm's start) of the window's requests, scaled by
    /// speed, at most `count` of them (0: all) and before `endS` (0: no end).
    std::vector<qint64> schedule(int count, double endS) const;
};

} // namespace ks
