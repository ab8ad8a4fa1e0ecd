#include "experiment/armsummary.h"

#include "metrics/armverdicts.h"
#include "metrics/percentiles.h"
#include "metrics/runsummary.h"
#include "metrics/tracelateness.h"
#include "metrics/ttftsplit.h"
#include "util/qstringtext.h"

namespace ks {

nlohmann::json armSummary(ArmSteering::Segment& segment, const std::vector<RequestRecord>& records,
    const LoadResult& result, const ArmSummaryContext& c)
{
    const ConfigSpec& config = c.config;
    nlohmann::json summary = summarizeRun(segment.run, config.label, segment.arm, records, c.slo, clientLoadOf(result));
    const MetricsScraper* scraper = c.server.scraper();
    if (scraper && c.wholeArm) // vLLM's histograms (over the whole arm), where the records give no better split
        offerHistogramSplit(summary, scraper->firstHistograms(), scraper->lastHistograms());
    if (!c.drift.is_null())
        summary["drift"] = c.drift;
    if (c.trace) {
        summary["trace"] = traceLateness(records); // how well the client kept the recorded schedule
        if (const std::string late = traceLatenessWarning(summary["trace"], summary.value("requests", 0));
            !late.empty())
            summary["warnings"].push_back(late);
    }
    summary["knobs"] = config.knobs; // each summary alone says what it measured (a grid's point)
    summary["model"] = text(config.model);
    summary["server"] = segment.server.summary(c.server.metricsProblem(), scraper);
    segment.server.writeSpecDecode(summary, scraper && c.last ? scraper->finalSpecDecode() : std::nullopt);
    if (!segment.gpu.is_null())
        summary["gpu"] = std::move(segment.gpu);
    if (scraper && scraper->failures() > 0 && c.last)
        summary["warnings"].push_back(scrapeGapWarning(*scraper));
    const auto mns = config.knobText(QStringLiteral("max_num_seqs"));
    addGentleVerdict(summary, records, c.loadArm, segment.server.samples, segment.server.samplesWaiting,
        mns ? std::optional<int>(mns->toInt()) : std::nullopt);
    for (const QString& warning : c.server.warnings())
        summary["warnings"].push_back(text(warning));
    if (!c.serverExited.isEmpty() && c.last) {
        summary["status"] = "server_exited";
        summary["warnings"].push_back("the server exited during this arm: " + text(c.serverExited));
    } else {
        summary["status"] = result.stopped && c.last ? "stopped" : "completed";
    }
    summary["interrupted"] = c.interrupted;
    if (!result.stats.connectMs.empty())
        summary["connect_ms"] = percentile(result.stats.connectMs, 50);
    if (!segment.sweep.is_null()) // a steered arm's segments are the steps of a sweep over that setting
        summary["sweep"] = std::move(segment.sweep);
    if (!segment.control.is_null())
        summary["control"] = std::move(segment.control);
    return summary;
}

} // namespace ks
