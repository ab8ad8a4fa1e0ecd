#pragma once

#include "metrics/bootstrap.h"
#include "metrics/runsummary.h"
#include "store/summaryline.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace ks {

/// The latency metrics every comparison has, in table order.
enum class LatencyMetric { Ttft, Tpot, Itl, E2e };
/// The percentiles each latency metric is compared at.
enum class LatencyStat { P50, P95, P99 };
inline constexpr std::array kLatencyMetrics { LatencyMetric::Ttft, LatencyMetric::Tpot, LatencyMetric::Itl,
    LatencyMetric::E2e };
inline constexpr std::array kLatencyStats { LatencyStat::P50, LatencyStat::P95, LatencyStat::P99 };

/// "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms": the key in `report` and `compare --json`.
const char* latencyKey(LatencyMetric metric);
/// "p50", "p95", "p99".
const char* statKey(LatencyStat stat);
std::optional<LatencyMetric> latencyMetricOf(std::string_view key);
std::optional<LatencyStat> latencyStatOf(std::string_view stat);

/// One latency statistic of one configuration against its arm's baseline
/// (docs/formats.md, `compare --json`: `ci95`, `ratio`, `ratio_ci95`,
/// `significant`, `within_run_significant`, `rounds_needed`).
struct ComparedStat {
    std::optional<Interval> ci; ///< the value's interval
    std::optional<double> ratio;
    std::optional<Interval> ratioCi;
    /// The interval excludes 1 and the run-to-run spread was measured (never for the baseline).
    std::optional<bool> significant;
    /// Only where the spread was not measured: what the block bootstrap alone says.
    std::optional<bool> withinRunSignificant;
    /// Undecided with a measured spread: `rounds_needed` names this statistic, with
    /// `roundsNeeded` its figure or empty where it cannot say.
    bool roundsNeededSaid = false;
    std::optional<int> roundsNeeded;
};

/// Where the calibration that made a `calibrated` interval came from.
struct CalibrationCitation {
    QString file, date, config;
    qint64 runs = 0;
};

/// How a configuration's intervals cover the spread between runs (`run_to_run`).
struct RunToRun {
    bool measured = false;
    QString method; ///< within-run, calibrated or rounds
    qint64 rounds = 1;
    double confidence = 0.95;
    bool intervals = true; ///< false in the dashboard's quick first pass: ratios only, no interval yet
    bool paired = true; ///< rounds paired by index; false when the two sides ran different rounds
    QString note; ///< one sentence for people
    std::optional<CalibrationCitation> calibration;
};

/// The warm-up dropped before every percentile and interval (`steady`).
struct SteadyTrim {
    QString method; ///< MSER-5
    qint64 dropped = 0;
    qint64 requests = 0;
    bool settled = true;
};

/// Why a number moved, or why an arm cannot say (`why`: docs/metrics.md).
struct Diagnosis {
    QString kind, text;
};

/// A configuration's reasoning and tool-call figures (`reasoning_tools`, docs/formats.md), each
/// where its summary has the total it comes from.
struct ReasoningFigures {
    /// Per ok request, and the reasoning share of every generated token.
    std::optional<double> reasoningTokens, answerTokens, toolCallEvents, toolCalls, reasoningShare;
    std::optional<SummaryDistribution> itlNoTools; ///< `itl_ms_no_tools`: ITL before each request's first tool delta
    std::optional<double> ok; ///< the ok requests the figures are over
    /// Each figure over the baseline's, where both have it and the baseline's is above 0; no interval.
    struct Ratios {
        std::optional<double> reasoningTokens, answerTokens, toolCallEvents, toolCalls, reasoningShare;
        std::optional<double> itlNoToolsP50, itlNoToolsP99;
        nlohmann::json rest = nlohmann::json::object(); ///< keys this version does not name
    };
    std::optional<Ratios> ratio; ///< empty where the baseline has no figures
    nlohmann::json rest = nlohmann::json::object(); ///< keys this version does not name
};

/// One figure over a configuration's rounds (`repeats.spread`, docs/formats.md).
struct RoundsSpread {
    std::vector<double> values; ///< each round's, in run order
    double mean = 0;
    double cv = 0; ///< sd / mean; 0 when the mean is 0
    std::optional<Interval> tCi95; ///< Student's t-interval of the mean; empty below two values
};

/// A configuration that ran more than once (`repeats`): its runs, their rounds,
/// and the spread of each figure over them. Read whole or not at all: a
/// `repeats` that does not fit stays in its configuration's `rest`.
struct RepeatFigures {
    qint64 n = 0;
    QStringList runs;
    std::vector<qint64> rounds; ///< each run's round, in run order
    std::array<std::array<std::optional<RoundsSpread>, kLatencyStats.size()>, kLatencyMetrics.size()> latency;
    std::optional<RoundsSpread> reqPerS;

    const std::optional<RoundsSpread>& spread(LatencyMetric metric, LatencyStat s) const
    {
        return latency[std::size_t(metric)][std::size_t(s)];
    }
    std::optional<RoundsSpread>& spread(LatencyMetric metric, LatencyStat s)
    {
        return latency[std::size_t(metric)][std::size_t(s)];
    }
};

/// A latency distribution per metric, in kLatencyMetrics order; empty where a side has none.
using LatencyDistributions = std::array<std::optional<SummaryDistribution>, kLatencyMetrics.size()>;

/// One configuration of a compared arm.
struct ComparedConfig {
    QString config, run;
    nlohmann::json knobs = nlohmann::json::object(); ///< as the run line has them
    std::optional<QString> model;
    LatencyDistributions latency;
    std::array<std::array<ComparedStat, kLatencyStats.size()>, kLatencyMetrics.size()> stats;
    QString ciMethod, ratioCiMethod; ///< `ci95.method`, `ratio_ci95.method`; empty without intervals
    std::optional<double> reqPerSRatio, outTokPerSRatio, goodputRatio;
    std::optional<RunToRun> runToRun;
    std::optional<double> roundsNeededFor; ///< `rounds_needed.for`: the difference sized for
    std::optional<SteadyTrim> steady;
    std::optional<LatencyDistributions> raw; ///< before the warm-up was dropped, when any was
    bool summaryOnly = false;
    double reqPerS = 0, outTokPerS = 0, goodputReqPerS = 0;
    qint64 requests = 0, errors = 0;
    double errorRate = 0;
    bool clientBound = false;
    bool gentle = false;
    std::optional<double> waitingShare, maxWaiting; ///< empty without scrapes
    std::optional<double> specAcceptance, specMeanAccepted;
    std::optional<bool> workloadDiffers; ///< only with --allow-different-workloads
    std::optional<Diagnosis> why; ///< not on the baseline
    std::optional<ReasoningFigures> reasoningTools;
    std::optional<RepeatFigures> repeats; ///< only where the configuration ran more than once
    /// Objects compare passes on as they are (docs/formats.md names their fields); null when absent.
    nlohmann::json ttftSplitMs, images, workload;
    nlohmann::json rest = nlohmann::json::object(); ///< keys this version does not name

    const ComparedStat& stat(LatencyMetric metric, LatencyStat s) const
    {
        return stats[std::size_t(metric)][std::size_t(s)];
    }
    ComparedStat& stat(LatencyMetric metric, LatencyStat s) { return stats[std::size_t(metric)][std::size_t(s)]; }
    const std::optional<SummaryDistribution>& latencyOf(LatencyMetric metric) const
    {
        return latency[std::size_t(metric)];
    }
    /// The distribution's figure ("p50", "p95", "p99", or p90, mean, max); empty when it has none.
    std::optional<double> value(LatencyMetric metric, LatencyStat s) const;
    /// `run_to_run.measured`; empty when the comparison does not say.
    std::optional<bool> runToRunMeasured() const { return runToRun ? std::optional(runToRun->measured) : std::nullopt; }
};

/// One arm of a comparison: its configurations side by side, against `baseline`.
struct ComparedArm {
    QString arm, baseline;
    bool gentle = false; ///< no configuration ever queued
    std::vector<ComparedConfig> configs;
    std::optional<QString> sweepArm; ///< a sweep's step: the sweep it belongs to
    std::optional<Slo> slo; ///< what goodput counted
    bool differentWorkloads = false;
    std::optional<QString> note, warning;
    QStringList unsettled; ///< configurations whose TTFT never settled
    std::optional<Diagnosis> why; ///< a gentle arm's
    /// A sweep's own entry (`sweep`) and a search's result (`search`), as compare
    /// gives them (docs/formats.md); null on other arms.
    nlohmann::json sweep, search;
    nlohmann::json rest = nlohmann::json::object(); ///< keys this version does not name

    /// The baseline's configuration; null when none has its label (a sweep's own entry).
    const ComparedConfig* baselineConfig() const;
    bool isSweep() const { return sweep.is_object(); }
};

/// compareRuns' result: one entry per arm, in file order.
using Comparison = std::vector<ComparedArm>;

/// The arm of `comparison` named `arm`; null when it has none.
const ComparedArm* armNamed(const Comparison& comparison, const QString& arm);

} // namespace ks
