#include "compare/comparison.h"

#include "compare/configruns.h"
#include "compare/diagnosis.h"
#include "compare/latencyratios.h"
#include "compare/reasoningfigures.h"
#include "compare/requestseries.h"
#include "compare/sequentialconfidence.h"
#include "compare/sweepcompare.h"
#include "import/importedrun.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/repeatstats.h"
#include "metrics/runsummary.h"
#include "metrics/ttftsplit.h"
#include "store/runid.h"
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

// The configuration's place in the spec (run line `config_index`); files without it keep file order.
std::size_t configIndexOf(const ConfigRuns& group)
{
    const nlohmann::json& line = group.runs.front()->info;
    const auto it = line.is_object() ? line.find("config_index") : line.end();
    return line.is_object() && it != line.end() && it->is_number_integer() && it->get<qint64>() >= 0
        ? it->get<std::size_t>()
        : 0;
}

// Whether the arm's configurations each have a place of their own (not two files' merged).
bool distinctConfigIndexes(const std::vector<ConfigRuns>& groups)
{
    std::set<std::size_t> seen;
    for (const ConfigRuns& group : groups)
        if (!seen.insert(configIndexOf(group)).second)
            return false;
    return true;
}

// The calibration arm that speaks for `baseline`'s arm, if one was given and matches.
IntervalPlan intervalPlan(const RunFile& file, const ConfigRuns& baseline, const nlohmann::json& baselineSummary,
    const CompareOptions& options, double confidence)
{
    IntervalPlan plan;
    plan.resamples = options.resamples;
    plan.seed = options.seed;
    plan.confidence = confidence;
    if (!options.calibration || baseline.runs.size() > 1)
        return plan;
    const Calibration& calibration = *options.calibration;
    const RunData& run = baseline.rawData();
    const auto arm = calibration.arms.find(run.arm);
    if (arm == calibration.arms.end()) {
        plan.calibrationProblem = QStringLiteral("the calibration has no arm \"%1\"").arg(run.arm);
        return plan;
    }
    if (const QString problem = calibrationMismatch(arm->second, calibrationIdentity(file, run)); !problem.isEmpty()) {
        plan.calibrationProblem = problem;
        return plan;
    }
    if (const QString problem = calibrationStaleness(arm->second, baselineSummary, confidence); !problem.isEmpty()) {
        plan.calibrationProblem = problem;
        return plan;
    }
    plan.calibration = &arm->second;
    plan.calibrationCitation = calibration.citation();
    plan.calibrationJson = { { "file", calibration.file.toStdString() }, { "date", calibration.date.toStdString() },
        { "runs", arm->second.runs }, { "config", calibration.config.toStdString() } };
    return plan;
}

} // namespace

nlohmann::json comparisonAssembly(const RunFile& file, const CompareOptions& options, QString* error)
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
            group = groups.insert(groups.end(), ConfigRuns { run.config, {}, {}, {}, {}, {} });
        group->runs.push_back(&run);
        if (const nlohmann::json sweep = sweepStepOf(run); !sweep.is_null())
            sweepOfArm[arm] = QString::fromStdString(sweep["arm"].get<std::string>());
    }
    const Slo slo = options.slo ? *options.slo : experimentSlo(file.experiment);
    const double confidence = options.confidence.value_or(roundsConfidence(file.spec()));
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
        // Interleaved rounds run the configurations in a random order: the spec's
        // order (its run lines' config_index) keeps its first as the baseline.
        if (distinctConfigIndexes(groups))
            std::stable_sort(groups.begin(), groups.end(),
                [](const ConfigRuns& a, const ConfigRuns& b) { return configIndexOf(a) < configIndexOf(b); });
        for (ConfigRuns& group : groups)
            group.prepare();
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
        const LatencyBaseline against { baseline, summaryOf(*baseline, arm, slo), repeatValuesOf(*baseline, arm, slo),
            options.resamples > 0 ? seriesOf(baseline->data()) : std::vector<Series>() };
        const nlohmann::json& baseSummary = against.summary;
        const IntervalPlan plan = intervalPlan(file, *baseline, baseSummary, options, confidence);
        bool allGentle = true;
        bool anySummaryOnly = false;
        QStringList unsettled;
        nlohmann::json configs = nlohmann::json::array();
        for (const ConfigRuns& group : groups) {
            const RunData& run = group.data();
            const nlohmann::json s = summaryOf(group, arm, slo);
            const RepeatValues repeats = repeatValuesOf(group, arm, slo);
            nlohmann::json entry
                = { { "config", group.config.toStdString() }, { "run", group.runs.front()->run.toStdString() } };
            // The configuration's knob values and model, so a chart's points can be matched to it.
            const nlohmann::json& line = group.runs.front()->info;
            const nlohmann::json knobs
                = line.is_object() ? line.value("knobs", nlohmann::json::object()) : nlohmann::json();
            entry["knobs"] = knobs.is_object() ? knobs : nlohmann::json::object();
            if (line.is_object() && line.contains("model") && line["model"].is_string())
                entry["model"] = line["model"];
            addLatencyRatios(entry, group, s, repeats, against, plan);
            nlohmann::json& ratio = entry["ratio"];
            if (group.cut.requests > 0) {
                entry["steady"] = { { "method", "MSER-5" }, { "dropped", group.cut.dropped },
                    { "requests", group.cut.requests }, { "settled", group.cut.settled } };
                if (!group.cut.settled)
                    unsettled << group.config;
                if (group.cut.dropped > 0) {
                    const nlohmann::json raw = rawSummaryOf(group, arm, slo);
                    for (const char* key : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" })
                        entry["raw"][key] = raw.value(key, nlohmann::json(nullptr));
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
                gentle = gentle && r->summary && r->summary->gentle.value_or(false);
                if (!r->summary)
                    continue;
                clientBound = clientBound || r->summary->clientBound();
                const nlohmann::json server = r->summary->rest.value("server", nlohmann::json());
                if (server.is_object()) {
                    keepLargest(maxWaiting, server.value("max_waiting", nlohmann::json(nullptr)));
                    keepLargest(waitingShare, server.value("waiting_share", nlohmann::json(nullptr)));
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
                    if (r->summary && r->summary->rest.value(key, nlohmann::json()).is_number())
                        sum += r->summary->rest[key].get<double>(), ++n;
                if (n > 0)
                    entry[key] = sum / n;
            }
            if (s.contains("ttft_split_ms"))
                entry["ttft_split_ms"] = s["ttft_split_ms"];
            if (s.contains("images"))
                entry["images"] = s["images"];
            if (group.runs.size() == 1 && group.runs.front()->summary
                && group.runs.front()->summary->rest.contains("ttft_split_ms")) // vLLM's histograms: the live summary's
                offerTtftSplit(entry, group.runs.front()->summary->rest["ttft_split_ms"]);
            if (workloadsDiffer) {
                entry["workload"] = workloadOf(run);
                entry["workload_differs"] = !Workload::sameWorkload(baseWorkload, entry["workload"], nullptr);
            }
            if (repeats.runs > 1)
                entry["repeats"] = repeats.json;
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
        if (!unsettled.isEmpty()) {
            nlohmann::json list = nlohmann::json::array();
            for (const QString& config : unsettled)
                list.push_back(config.toStdString());
            armEntry["unsettled"] = list;
            warnings.push_back("TTFT was still moving at the end of the run for "
                + unsettled.join(QStringLiteral(", ")).toStdString()
                + ": the arm never reached a steady state, so its percentiles and intervals describe a moving target");
        }
        if (!warnings.empty()) {
            std::string joined;
            for (const std::string& w : warnings)
                joined += (joined.empty() ? "" : "; ") + w;
            armEntry["warning"] = joined;
        }
        addDiagnoses(armEntry);
        out.push_back(armEntry);
    }
    return out;
}

Comparison compareRuns(const RunFile& file, const CompareOptions& options, QString* error)
{
    return comparisonFromJson(comparisonAssembly(file, options, error));
}

nlohmann::json compareRunsJson(const RunFile& file, const CompareOptions& options, QString* error)
{
    QString refused;
    const Comparison comparison = compareRuns(file, options, &refused);
    if (!refused.isEmpty()) {
        *error = refused;
        return nullptr;
    }
    return comparisonToJson(comparison);
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
            RunId id = RunId::parse(run.run); // keeps @VALUE, #N and ~SEGMENT
            id.config = run.config;
            run.run = id.toString();
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
