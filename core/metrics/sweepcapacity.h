#pragma once

#include "metrics/runsummary.h"
#include "store/summaryline.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace ks {

/// How far below the offered rate a step's completion rate may fall and still
/// count as keeping up (docs/experiments.md, "Sweeps").
inline constexpr double kKeptUpShare = 0.9;

/// One finished sweep step, judged against the experiment's SLO.
struct StepVerdict {
    bool meetsSlo = true; ///< TTFT p99 and TPOT p99 within the SLO (true without one)
    bool keptUp = true; ///< completions kept within 10 % of the offered rate (rate steps only)
    QString sloProblem; ///< "TTFT p99 612 ms > 500 ms", empty when met
    QString rateProblem; ///< "achieved 6.1 req/s, below 90 % of the offered 8.0", empty when kept up
    bool passes() const { return meetsSlo && keptUp; }
};

/// Judges one step's summary (summarizeRun()). `rateStep`: the step asked for a
/// rate, so it must also keep up. A step without completions fails both.
StepVerdict judgeStep(const nlohmann::json& summary, const Slo& slo, bool rateStep);

/// The rate a step achieved: completions per second between its first and last
/// completion (`completion_req_per_s`), or `req_per_s` for files without it.
double achievedRate(const nlohmann::json& summary);

/// One point of a configuration's sweep, read back from a summary's `sweep`
/// object (live or from a file).
struct SweepPoint {
    QString config;
    QString run;
    QString step; ///< "rate", "concurrency", "synchronous" or "throughput"
    std::optional<double> value; ///< the requested rate or concurrency; none for synchronous/throughput
    int repeat = 1;
    double achievedReqPerS = 0;
    double ttftP50 = -1, ttftP99 = -1, tpotP50 = -1, tpotP99 = -1;
    StepVerdict verdict;
    QString stop; ///< the early-stop reason recorded on this step, if any
    QString arm; ///< the sweep's arm (`sweep.arm`)
    bool overRate = true; ///< a sweep over rates (`sweep.over`), not concurrencies
};

/// A point from a step summary that carries `sweep`; nullopt for other summaries.
std::optional<SweepPoint> sweepPoint(const nlohmann::json& summary, const Slo& slo);
/// The SLO a run's summary was judged against (its `slo`); none when it carries none.
Slo summarySlo(const RunSummary& summary);
/// sweepPoint() of a typed summary, against the SLO it carries (the Live page's knee).
std::optional<SweepPoint> sweepPoint(const RunSummary& summary);

/// The capacity of one configuration: the highest requested value whose every
/// repeat passed (SLO met, kept up). Synchronous and throughput steps never count.
std::optional<double> sweepCapacity(const std::vector<SweepPoint>& points);

/// What the capacity step achieved: the mean completion rate (req/s) of its
/// repeats. A step is named by what it asked for (its offered rate or
/// concurrency); every chart and line that places it on a req/s axis uses this.
std::optional<double> achievedAtCapacity(const std::vector<SweepPoint>& points, double capacity);

/// "16 req/s offered (16.6 achieved)" or "32 in flight (14.9 req/s achieved)".
QString capacityText(double capacity, std::optional<double> achieved, bool overRate);

} // namespace ks
