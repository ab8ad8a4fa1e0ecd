#include "compare/latencyratios.h"

#include "compare/runtorun.h"

#include <QStringList>

#include <cmath>

namespace ks {

namespace {

const char* const kKeys[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
const char* const kStats[] = { "p50", "p95", "p99" };
const double kPs[] = { 50, 95, 99 };
constexpr double kResolve = 0.05; // rounds_needed answers for a 5 % difference

std::string percentText(double confidence)
{
    const double percent = confidence * 100;
    return QString::number(percent, 'f', std::abs(percent - std::round(percent)) < 1e-9 ? 0 : 1).toStdString();
}

RunToRunMethod methodOf(bool rounds, const IntervalPlan& plan)
{
    if (rounds)
        return RunToRunMethod::Rounds;
    return plan.calibration ? RunToRunMethod::Calibrated : RunToRunMethod::WithinRun;
}

nlohmann::json runToRunJson(RunToRunMethod method, int rounds, bool paired, const IntervalPlan& plan)
{
    const std::string percent = percentText(plan.confidence);
    std::string note;
    if (plan.resamples <= 0) {
        // The dashboard's quick first pass: ratios only. Saying "95 % intervals" here would describe
        // intervals that are not there.
        note = "no intervals computed yet (the quick first pass); run-to-run ";
        if (method == RunToRunMethod::Rounds)
            note += "from " + std::to_string(rounds) + (paired ? " paired" : " unpaired") + " rounds";
        else if (method == RunToRunMethod::Calibrated)
            note += "from the " + plan.calibrationCitation.toStdString();
        else
            note += "not measured: add repeats or calibrate";
    } else {
        switch (method) {
        case RunToRunMethod::Rounds:
            note = percent + " % intervals across " + std::to_string(rounds) + (paired ? " paired" : " unpaired")
                + " rounds (Student's t over the rounds, at least the pooled requests' block bootstrap)";
            break;
        case RunToRunMethod::Calibrated:
            note = percent + " % intervals with the " + plan.calibrationCitation.toStdString();
            break;
        case RunToRunMethod::WithinRun:
            note = percent + " % intervals within one run; run-to-run not measured: add repeats or calibrate";
            if (!plan.calibrationProblem.isEmpty())
                note += " (" + plan.calibrationProblem.toStdString() + ")";
            break;
        }
    }
    nlohmann::json out = { { "measured", method != RunToRunMethod::WithinRun },
        { "method", runToRunMethodName(method) }, { "rounds", rounds }, { "confidence", plan.confidence },
        { "intervals", plan.resamples > 0 }, { "paired", paired }, { "note", note } };
    if (method == RunToRunMethod::Calibrated)
        out["calibration"] = plan.calibrationJson;
    return out;
}

} // namespace

void addLatencyRatios(nlohmann::json& entry, const ConfigRuns& group, const nlohmann::json& summary,
    const RepeatValues& repeats, const LatencyBaseline& baseline, const IntervalPlan& plan)
{
    const bool isBaseline = &group == baseline.group;
    const bool withIntervals = plan.resamples > 0;
    const std::vector<Series> series = withIntervals ? seriesOf(group.data()) : std::vector<Series>();
    const bool rounds = repeats.runs > 1 && baseline.repeats.runs > 1;
    const RunToRunMethod method = methodOf(rounds, plan);
    nlohmann::json ci = nlohmann::json::object(), ratio = nlohmann::json::object(), ratioCi = nlohmann::json::object(),
                   significant = nlohmann::json::object(), withinRun = nlohmann::json::object(),
                   needed = nlohmann::json::object();
    int pairedRounds = 1;
    bool paired = true;
    for (std::size_t m = 0; m < std::size(kKeys); ++m) {
        const char* key = kKeys[m];
        entry[key] = summary.contains(key) ? summary[key] : nlohmann::json(nullptr);
        if (summary[key].is_null() || baseline.summary.value(key, nlohmann::json()).is_null())
            continue; // no values on one side
        // Intervals need both sides' requests; a summary-only import has none.
        const bool intervals = withIntervals && !series[m].values.empty() && !baseline.series[m].values.empty();
        BootstrapIntervals bootstrap;
        if (intervals)
            bootstrap = bootstrapIntervals(baseline.series[m].values, series[m].values, kPs, plan.resamples,
                plan.seed + 1 + m, plan.confidence, baseline.series[m].block, series[m].block);
        for (std::size_t k = 0; k < std::size(kStats); ++k) {
            const char* stat = kStats[k];
            const std::string id = std::string(key) + '.' + stat;
            const std::optional<double> value = statOf(summary, key, stat);
            const std::optional<double> baseValue = statOf(baseline.summary, key, stat);
            std::optional<RoundSpread> spread;
            if (rounds) {
                const auto base = baseline.repeats.values.find(id), other = repeats.values.find(id);
                if (base != baseline.repeats.values.end() && other != repeats.values.end())
                    spread = roundSpread(base->second, other->second);
            }
            const double calibrationSd
                = plan.calibration && plan.calibration->logSd.count(id) ? plan.calibration->logSd.at(id) : std::nan("");
            if (intervals && value) {
                Interval own = bootstrap.other[k];
                if (rounds && repeats.values.count(id)) {
                    const auto [sd, df] = logSpread(repeats.values.at(id));
                    own = valueInterval(*value, own, sd, df, repeats.runs, plan.confidence);
                } else if (!rounds && std::isfinite(calibrationSd)) {
                    own = valueInterval(*value, own, calibrationSd, plan.calibration->runs - 1, 1, plan.confidence);
                }
                ci[key][stat] = intervalJson(own);
            }
            if (!baseValue || *baseValue <= 0 || !value)
                continue;
            // With rounds, the ratio is the rounds' own (each against the baseline in its round).
            const double r = rounds && spread ? std::exp(spread->meanLog) : *value / *baseValue;
            ratio[key][stat] = r;
            if (spread) {
                pairedRounds = std::max(pairedRounds, spread->rounds);
                paired = paired && spread->paired;
            }
            if (!intervals)
                continue;
            Interval interval = bootstrap.ratio[k];
            double pairSd = std::nan("");
            int roundsNow = 1;
            if (rounds && spread) {
                interval = roundsInterval(interval, *spread, plan.confidence);
                pairSd = spread->pairSd;
                roundsNow = spread->rounds;
            } else if (!rounds && std::isfinite(calibrationSd)) {
                interval = calibratedInterval(r, interval, calibrationSd, plan.calibration->runs, plan.confidence);
                pairSd = std::sqrt(2.0) * calibrationSd;
            }
            ratioCi[key][stat] = intervalJson(interval);
            if (isBaseline) {
                significant[key][stat] = false;
                continue;
            }
            const bool excludesOne = !interval.contains(1.0);
            const bool measured = rounds ? spread.has_value() : std::isfinite(calibrationSd);
            significant[key][stat] = measured && excludesOne;
            if (!measured)
                withinRun[key][stat] = excludesOne;
            if (measured && !excludesOne) {
                const std::optional<int> n
                    = roundsNeeded(pairSd, logHalfWidth(bootstrap.ratio[k]), roundsNow, plan.confidence, kResolve);
                needed[key][stat] = n ? nlohmann::json(*n) : nlohmann::json(nullptr);
            }
        }
    }
    const char* methodName = runToRunMethodName(method);
    if (!ci.empty())
        ci["method"] = methodName;
    if (!ratioCi.empty())
        ratioCi["method"] = methodName;
    entry["ci95"] = ci;
    entry["ratio"] = ratio;
    entry["ratio_ci95"] = ratioCi;
    entry["significant"] = significant;
    entry["run_to_run"] = runToRunJson(method, rounds ? pairedRounds : 1, paired, plan);
    if (!withinRun.empty())
        entry["within_run_significant"] = withinRun;
    if (!needed.empty()) {
        needed["for"] = kResolve;
        entry["rounds_needed"] = needed;
    }
}

} // namespace ks
