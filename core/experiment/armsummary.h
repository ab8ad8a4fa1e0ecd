#pragma once

#include "experiment/armsteering.h"
#include "experiment/serversession.h"
#include "load/loadrunner.h"
#include "spec/experimentspec.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// What the runner knows of an arm beyond its records, for its summary.
struct ArmSummaryContext {
    const ConfigSpec& config;
    const Slo& slo;
    const ServerSession& server;
    nlohmann::json drift; ///< a probe pass's `drift`; null for load arms
    bool loadArm = true; ///< not a probe pass: it may be called gentle
    bool trace = false; ///< a trace arm: how well the client kept the schedule
    QString serverExited; ///< why the server died during the arm; empty when it did not
    bool interrupted = false; ///< Stop, Ctrl-C or a failed write
    bool last = true; ///< the arm's last segment: the scrape after its end is its own
    bool wholeArm = true; ///< not steered: the scraper's histograms cover this run alone
};

/// A finished run's summary (docs/formats.md, "summary"), without "type": the
/// figures from its records, and what the server, the GPU, the client and the
/// runner said during it. Takes the segment's GPU summary and sweep.
nlohmann::json armSummary(ArmSteering::Segment& segment, const std::vector<RequestRecord>& records,
    const LoadResult& result, const ArmSummaryContext& context);

} // namespace ks
