#include "compare/comparison.h"

#include "compare/diagnosis.h"
#include "compare/reasoningfigures.h"
#include "compare/requestseries.h"
#include "compare/runtorun.h"
#include "compare/sweepcompare.h"
#include "import/importedrun.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/repeatstats.h"
#include "metrics/runsummary.h"
#include "metrics/ttftsplit.h"
#include "workload/workload.h"

#include <QFileInfo>

#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace ks {

namespace {

nlohmann::json workloadOf(const RunData& run)
{
    return run.info.is_object() ? run.info.value("prompts", nlohmann::json()) : nlohmann::json();
}

nlohmann::json interval(const Interval& i)
{
    return nlohmann::json::array({ i.low, i.high });
}

// An imported run's figures may be the tool's own (summary-only): docs/formats.md, "Importing".
nlohmann::json runSummaryOf(const RunData& run, const QString& arm, const Slo& slo)
{
    if (isImported(run)) {
        nlohmann::json s = importedRunSummary(run, slo);
        s["arm"] = arm.toStdString();
        return s;
    }
    return summarizeRun(run.run, run.config, arm, run.requests, slo);
}

std::optional<double> statOf(const nlohmann::json& summary, const char* key, const char* stat)
{
    const auto metric = summary.find(key);
    if (metric == summary.end() || !metric->is_object())
        return std::nullopt;
    const auto value = metric->find(stat);
    return value != metric->end() && value->is_number() ? std::optional<double>(value->get<double>()) : std::nullopt;
}

// One configuration's runs of one arm: a single run, or its repeats pooled
// (every request of every repeat) for the bootstrap and the CDFs.
struct ConfigRuns {
    QString config;
    std::vector<const RunData*> runs;
    RunData pooled; ///< filled by pool() when there are repeats
    void pool()
    {
        if (runs.size() < 2)
            return;
        pooled.run = runs.front()->run;
        pooled.config = config;
        pooled.arm = runs.front()->arm;
        pooled.requests.setRun(pooled.run);
        for (const RunData* r : runs)
            for (const RequestRecord& record : r->requests)
                pooled.requests.push_back(record);
    }
    const RunData& data() const { return runs.size() < 2 ? *runs.front() : pooled; }
};

// Latency over the pooled requests; rates as the mean over repeats, since each
// repeat's clock starts at 0 and pooled spans would overlap.
nlohmann::json summaryOf(const ConfigRuns& group, const QString& arm, const Slo& slo)
{
    const RunData& run = group.data();
    nlohmann::json s = runSummaryOf(run, arm, slo);
    if (group.runs.size() < 2)
        return s;
    for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s" }) {
        double sum = 0;
        for (const RunData* r : group.runs)
            sum += summarizeRun(r->run, r->config, arm, r->requests, slo)[key].get<double>();
        s[key] = sum / double(group.runs.size());
    }
    return s;
}

// Each repeat's value of every latency statistic, and the `repeats` object.
struct RepeatValues {
    int runs = 0;
    std::map<std::string, std::vector<double>> values; ///< "ttft_ms.p50" -> one value per repeat
    nlohmann::json json;
};

RepeatValues repeatValuesOf(const ConfigRuns& group, const QString& arm, const Slo& slo)
{
    RepeatValues out;
    out.runs = int(group.runs.size());
    if (out.runs < 2)
        return out;
    std::map<std::string, std::vector<double>> rates;
    nlohmann::json runs = nlohmann::json::array();
    for (const RunData* r : group.runs) {
        runs.push_back(r->run.toStdString());
        const nlohmann::json s = summarizeRun(r->run, r->config, arm, r->requests, slo);
        for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" })
            for (const char* stat : { "p50", "p95", "p99" })
                if (s[key].is_object())
                    out.values[std::string(key) + '.' + stat].push_back(s[key][stat].get<double>());
        rates["req_per_s"].push_back(s["req_per_s"].get<double>());
    }
    nlohmann::json spread = nlohmann::json::object();
    auto describe = [](const std::vector<double>& v) {
        const RepeatSpread r = repeatSpread(v);
        return nlohmann::json { { "values", v }, { "mean", r.mean }, { "cv", r.cv },
            { "t_ci95", r.tCi95 ? interval(*r.tCi95) : nlohmann::json(nullptr) } };
    };
    for (const auto& [id, v] : out.values) {
        const auto dot = id.find('.');
        spread[id.substr(0, dot)][id.substr(dot + 1)] = describe(v);
    }
    spread["req_per_s"] = describe(rates["req_per_s"]);
    out.json = { { "n", out.runs }, { "runs", runs }, { "spread", spread } };
    return out;
}

// Welch's interval of the difference of repeat means, as a ratio to the
// baseline's mean, so it reads like the bootstrap's ratio interval.
std::optional<Interval> repeatRatioCi95(const std::vector<double>& base, const std::vector<double>& other)
{
    const std::optional<Interval> d = welchDifferenceCi95(base, other);
    if (!d || base.empty())
        return std::nullopt;
    double mean = 0;
    for (double v : base)
        mean += v / double(base.size());
    if (mean <= 0)
        return std::nullopt;
    return Interval { 1.0 + d->low / mean, 1.0 + d->high / mean };
}

} // namespace

nlohmann::json compareRuns(const RunFile& file, const CompareOptions& options, QString* error)
{
    // Arms in the order they first appear; configurations in file order within
    // each; the repeats of one configuration (ARM#2, ...) together.
    std::vector<QString> arms;
    std::map<QString, std::vector<ConfigRuns>> byArm;
    std::map<QString, QString> sweepOfArm; // step arm -> its sweep arm
    for (const RunData& run : file.runs) {
        if (run.info.contains("probes"))
            continue; // probe passes measure output stability, not load: `knobscope drift`
        const QString arm = run.arm.isEmpty() ? run.run : run.arm;
        if (!byArm.count(arm))
            arms.push_back(arm);
        std::vector<ConfigRuns>& groups = byArm[arm];
        auto group
            = std::find_if(groups.begin(), groups.end(), [&](const ConfigRuns& g) { return g.config == run.config; });
        if (group == groups.end())
            group = groups.insert(groups.end(), ConfigRuns { run.config, {}, {} });
        group->runs.push_back(&run);
        if (const nlohmann::json sweep = sweepStepOf(run); !sweep.is_null())
            sweepOfArm[arm] = QString::fromStdString(sweep["arm"].get<std::string>());
    }
    const Slo slo = options.slo ? *options.slo : experimentSlo(file.experiment);
    const std::vector<SweepRuns> sweeps = sweepRunsOf(file);
    std::set<QString> sweepsDone;
    nlohmann::json out = nlohmann::json::array();
    for (const QString& arm : arms) {
        if (const auto sweep = sweepOfArm.find(arm); sweep != sweepOfArm.end() && !sweepsDone.count(sweep->second)) {
            sweepsDone.insert(sweep->second); // a sweep's own entry comes before its first step
            for (const SweepRuns& s : sweeps)
                if (s.arm == sweep->second)
                    out.push_back(sweepCompareEntry(s, slo));
        }
        std::vector<ConfigRuns>& groups = byArm[arm];
        for (ConfigRuns& group : groups)
            group.pool();
        const ConfigRuns* baseline = &groups.front();
        if (!options.baseline.isEmpty()) {
            const auto it = std::find_if(
                groups.begin(), groups.end(), [&](const ConfigRuns& g) { return g.config == options.baseline; });
            if (it == groups.end()) {
                *error = QStringLiteral("arm \"%1\" has no configuration \"%2\"").arg(arm, options.baseline);
                return nullptr;
            }
            baseline = &*it;
        }
        const nlohmann::json baseWorkload = workloadOf(baseline->data());
        bool workloadsDiffer = false;
        for (const ConfigRuns& group : groups) {
            QString problem;
            if (Workload::sameWorkload(baseWorkload, workloadOf(group.data()), &problem))
                continue;
            workloadsDiffer = true;
            if (options.allowDifferentWorkloads)
                continue;
            *error = QStringLiteral("arm \"%1\": %2 and %3 ran different workloads (%4); their latencies are not "
                                    "comparable (--allow-different-workloads compares them anyway, marked)")
                         .arg(arm, baseline->config, group.config, problem);
            return nullptr;
        }
        const bool withIntervals = options.resamples > 0;
        const std::vector<Series> baseSeries = withIntervals ? seriesOf(baseline->data()) : std::vector<Series>();
        const nlohmann::json baseSummary = summaryOf(*baseline, arm, slo);
        const RepeatValues baseRepeats = repeatValuesOf(*baseline, arm, slo);
        bool allGentle = true;
        bool anySummaryOnly = false;
        nlohmann::json configs = nlohmann::json::array();
        for (const ConfigRuns& group : groups) {
            const bool isBaseline = &group == baseline;
            const RunData& run = group.data();
            const nlohmann::json s = summaryOf(group, arm, slo);
            const std::vector<Series> series = withIntervals ? seriesOf(run) : std::vector<Series>();
            const RepeatValues repeats = repeatValuesOf(group, arm, slo);
            const bool withRepeats = repeats.runs > 1 && baseRepeats.runs > 1;
            nlohmann::json entry
                = { { "config", group.config.toStdString() }, { "run", group.runs.front()->run.toStdString() } };
            // The configuration's knob values and model, so a chart's points can be matched to it.
            const nlohmann::json& line = group.runs.front()->info;
            const nlohmann::json knobs
                = line.is_object() ? line.value("knobs", nlohmann::json::object()) : nlohmann::json();
            entry["knobs"] = knobs.is_object() ? knobs : nlohmann::json::object();
            if (line.is_object() && line.contains("model") && line["model"].is_string())
                entry["model"] = line["model"];
            nlohmann::json ci = nlohmann::json::object(), ratio = nlohmann::json::object(),
                           ratioCi = nlohmann::json::object(), significant = nlohmann::json::object(),
                           bootstrapSignificant = nlohmann::json::object(), repeatRatioCi = nlohmann::json::object();
            const quint64 seed = options.seed;
            static const char* const kKeys[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
            static const char* const kStats[] = { "p50", "p95", "p99" };
            static const double kPs[] = { 50, 95, 99 };
            for (std::size_t m = 0; m < std::size(kKeys); ++m) {
                const char* key = kKeys[m];
                entry[key] = s.contains(key) ? s[key] : nlohmann::json(nullptr);
                if (s[key].is_null() || baseSummary[key].is_null())
                    continue; // no values on one side
                // Intervals need both runs' requests; a summary-only import has none, so its
                // ratios come without intervals.
                const bool intervals = withIntervals && !series[m].values.empty() && !baseSeries[m].values.empty();
                BootstrapIntervals bootstrap;
                if (intervals)
                    bootstrap = bootstrapIntervals(baseSeries[m].values, series[m].values, kPs, options.resamples,
                        seed + 1 + m, 0.95, baseSeries[m].block, series[m].block);
                for (std::size_t k = 0; k < std::size(kStats); ++k) {
                    const char* stat = kStats[k];
                    if (intervals)
                        ci[key][stat] = interval(bootstrap.other[k]);
                    const std::optional<double> baseValue = statOf(baseSummary, key, stat);
                    const std::optional<double> value = statOf(s, key, stat);
                    if (!baseValue || *baseValue <= 0 || !value)
                        continue;
                    ratio[key][stat] = *value / *baseValue;
                    std::optional<Interval> across;
                    if (withRepeats && !isBaseline) {
                        const std::string id = std::string(key) + '.' + stat;
                        const auto base = baseRepeats.values.find(id);
                        const auto other = repeats.values.find(id);
                        if (base != baseRepeats.values.end() && other != repeats.values.end())
                            across = repeatRatioCi95(base->second, other->second);
                        if (across)
                            repeatRatioCi[key][stat] = interval(*across);
                    }
                    if (!intervals)
                        continue;
                    // One run on a side cannot show how runs differ: the A/A spread is added.
                    Interval r = bootstrap.ratio[k];
                    if (!withRepeats && !isBaseline) {
                        const double runToRun = runToRunHalfWidth(key, stat);
                        r = widenByRunToRun(r, runToRun);
                        ci[key][stat] = interval(widenByRunToRun(bootstrap.other[k], runToRun / std::sqrt(2.0)));
                    }
                    ratioCi[key][stat] = interval(r);
                    const bool bootstrapSays = !isBaseline && !r.contains(1.0);
                    // With repeats on both sides, a difference is real only when the
                    // run-to-run interval excludes 1 as well, on the same side.
                    const bool repeatsSay = !across || (!across->contains(1.0) && (across->low > 1.0) == (r.low > 1.0));
                    significant[key][stat] = bootstrapSays && repeatsSay;
                    if (withRepeats)
                        bootstrapSignificant[key][stat] = bootstrapSays;
                }
            }
            if (isSummaryOnly(run)) {
                anySummaryOnly = true;
                entry["summary_only"] = true;
            }
            for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s" }) {
                entry[key] = s.value(key, 0.0);
                const double base = baseSummary.value(key, 0.0);
                if (base > 0)
                    ratio[key] = s.value(key, 0.0) / base;
            }
            const int requests = s.value("requests", 0);
            entry["requests"] = requests;
            entry["errors"] = s.value("errors", 0);
            entry["error_rate"] = requests > 0 ? s.value("errors", 0.0) / requests : 0.0;
            bool gentle = true;
            bool clientBound = false;
            nlohmann::json maxWaiting = nullptr;
            nlohmann::json waitingShare = nullptr; // the largest over repeats, as max_waiting
            const auto keepLargest = [](nlohmann::json& kept, const nlohmann::json& value) {
                if (value.is_number() && (kept.is_null() || value.get<double>() > kept.get<double>()))
                    kept = value;
            };
            for (const RunData* r : group.runs) {
                const nlohmann::json& stored = r->summary;
                gentle = gentle && stored.is_object() && stored.value("gentle", false);
                if (stored.is_object() && stored.value("client", nlohmann::json()).is_object())
                    clientBound = clientBound || stored["client"].value("client_bound", false) == true;
                if (stored.is_object() && stored.value("server", nlohmann::json()).is_object()) {
                    keepLargest(maxWaiting, stored["server"].value("max_waiting", nlohmann::json(nullptr)));
                    keepLargest(waitingShare, stored["server"].value("waiting_share", nlohmann::json(nullptr)));
                }
            }
            if (clientBound)
                entry["client_bound"] = true;
            entry["waiting_share"] = waitingShare;
            allGentle = allGentle && gentle;
            entry["gentle"] = gentle;
            entry["max_waiting"] = maxWaiting;
            if (nlohmann::json figures = reasoningFigures(s); !figures.is_null()) {
                addReasoningRatios(figures, reasoningFigures(baseSummary));
                entry["reasoning_tools"] = std::move(figures);
            }
            for (const char* key : { "spec_acceptance", "spec_mean_accepted" }) { // the mean over repeats
                double sum = 0;
                int n = 0;
                for (const RunData* r : group.runs)
                    if (r->summary.is_object() && r->summary.value(key, nlohmann::json()).is_number())
                        sum += r->summary[key].get<double>(), ++n;
                if (n > 0)
                    entry[key] = sum / n;
            }
            if (s.contains("ttft_split_ms"))
                entry["ttft_split_ms"] = s["ttft_split_ms"];
            if (s.contains("images"))
                entry["images"] = s["images"];
            if (group.runs.size() == 1 && group.runs.front()->summary.is_object()
                && group.runs.front()->summary.contains("ttft_split_ms")) // vLLM's histograms: the live summary's
                offerTtftSplit(entry, group.runs.front()->summary["ttft_split_ms"]);
            if (workloadsDiffer) {
                entry["workload"] = workloadOf(run);
                entry["workload_differs"] = !Workload::sameWorkload(baseWorkload, entry["workload"], nullptr);
            }
            // What the intervals cover (docs/metrics.md, "Intervals").
            const char* method = withRepeats ? "block-bootstrap+repeats"
                : isBaseline                 ? "block-bootstrap"
                                             : "block-bootstrap+run-to-run";
            if (!ci.empty())
                ci["method"] = method;
            if (!ratioCi.empty())
                ratioCi["method"] = method;
            entry["ci95"] = ci;
            entry["ratio"] = ratio;
            entry["ratio_ci95"] = ratioCi;
            entry["significant"] = significant;
            if (repeats.runs > 1) {
                entry["repeats"] = repeats.json;
                if (withRepeats && !isBaseline) {
                    entry["repeat_ratio_ci95"] = repeatRatioCi;
                    entry["bootstrap_significant"] = bootstrapSignificant;
                }
            }
            configs.push_back(entry);
        }
        nlohmann::json armEntry = { { "arm", arm.toStdString() }, { "baseline", baseline->config.toStdString() },
            { "gentle", allGentle }, { "configs", configs } };
        if (const auto sweep = sweepOfArm.find(arm); sweep != sweepOfArm.end())
            armEntry["sweep_arm"] = sweep->second.toStdString();
        if (slo.any())
            armEntry["slo"] = { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } };
        std::vector<std::string> warnings;
        if (workloadsDiffer) {
            armEntry["different_workloads"] = true;
            warnings.push_back("the configurations of this arm ran different workloads (prompts, lengths or prompt "
                               "file): differences are not the configurations' alone");
        }
        if (anySummaryOnly)
            armEntry["note"] = "summary-only imports carry only their tool's aggregates: their figures and ratios "
                               "have no 95 % intervals";
        if (allGentle)
            warnings.push_back("this arm never queued on any configuration, so it cannot show a queueing cliff");
        if (!warnings.empty())
            armEntry["warning"] = warnings.size() == 1 ? warnings[0] : warnings[0] + "; " + warnings[1];
        addDiagnoses(armEntry);
        out.push_back(armEntry);
    }
    return out;
}

std::pair<QString, QString> fileLabels(const QString& firstPath, const QString& secondPath)
{
    const QString a = QFileInfo(firstPath).completeBaseName();
    const QString b = QFileInfo(secondPath).completeBaseName();
    if (a == b)
        return { QStringLiteral("1"), QStringLiteral("2") };
    return { a, b };
}

namespace {

// The load arms of a file (probe passes left out), in file order, without repeats.
QStringList loadArms(const RunFile& file)
{
    QStringList arms;
    for (const RunData& run : file.runs) {
        if (!run.info.contains("probes") && !arms.contains(run.arm))
            arms << run.arm;
    }
    return arms;
}

} // namespace

RunFile mergeRunFiles(const RunFile& first, const QString& firstName, const RunFile& second, const QString& secondName)
{
    // Yesterday's vLLM result ("concurrency=64") against today's run ("adhoc"): when
    // each file holds one load arm and their names differ, that one arm is compared.
    const QStringList firstArms = loadArms(first), secondArms = loadArms(second);
    const bool renameSecond
        = firstArms.size() == 1 && secondArms.size() == 1 && firstArms.front() != secondArms.front();
    RunFile merged;
    merged.experiment = first.experiment;
    for (const auto& [file, name] : { std::pair { &first, firstName }, std::pair { &second, secondName } }) {
        const QString suffix = QStringLiteral(" @") + name;
        for (RunData run : file->runs) {
            if (renameSecond && file == &second && run.arm == secondArms.front())
                run.arm = firstArms.front();
            run.config += suffix;
            run.run = run.config + QLatin1Char('/') + run.run.section(QLatin1Char('/'), 1); // keeps @VALUE and #N
            run.requests.setRun(run.run);
            merged.runs.push_back(std::move(run));
        }
        for (const RunFileIssue& issue : file->issues)
            merged.issues.push_back({ issue.line, name + QStringLiteral(": ") + issue.message });
        merged.truncated = merged.truncated || file->truncated;
        merged.lines += file->lines;
    }
    if (renameSecond)
        merged.issues.push_back({ 0,
            QStringLiteral("arms \"%1\" (%2) and \"%3\" (%4) have different names; each file has only that one "
                           "load arm, so they are compared as \"%1\"")
                .arg(firstArms.front(), firstName, secondArms.front(), secondName) });
    // compareRuns() keeps arms in first-seen order and configurations in file order within each.
    return merged;
}

} // namespace ks
