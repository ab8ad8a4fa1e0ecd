#include "metrics/comparison.h"

#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/runsummary.h"
#include "workload/workload.h"

#include <QFileInfo>

#include <map>

namespace ks {

namespace {

// Bootstrap intervals on ITL resample at most this many gaps (a deterministic
// stride), keeping compare interactive on long runs; point values use all gaps.
constexpr std::size_t kMaxBootstrapValues = 5000;

struct Series {
    const char* key;
    std::vector<double> values;
};

std::vector<Series> seriesOf(const RunData& run)
{
    Series ttft { "ttft_ms", {} }, tpot { "tpot_ms", {} }, itl { "itl_ms", {} }, e2e { "e2e_ms", {} };
    for (const RequestRecord& r : run.requests) {
        if (!r.ok || r.warmup)
            continue;
        if (r.ttftUs >= 0)
            ttft.values.push_back(double(r.ttftUs) / 1000.0);
        if (const double t = r.tpotUs(); t >= 0)
            tpot.values.push_back(t / 1000.0);
        for (std::int32_t gap : r.itlUs)
            itl.values.push_back(double(gap) / 1000.0);
        e2e.values.push_back(double(r.e2eUs) / 1000.0);
    }
    return { ttft, tpot, itl, e2e };
}

nlohmann::json workloadOf(const RunData& run)
{
    return run.info.is_object() ? run.info.value("prompts", nlohmann::json()) : nlohmann::json();
}

std::vector<double> thinned(const std::vector<double>& v)
{
    if (v.size() <= kMaxBootstrapValues)
        return v;
    std::vector<double> out;
    const double stride = double(v.size()) / double(kMaxBootstrapValues);
    for (std::size_t i = 0; i < kMaxBootstrapValues; ++i)
        out.push_back(v[std::size_t(double(i) * stride)]);
    return out;
}

nlohmann::json interval(const Interval& i)
{
    return nlohmann::json::array({ i.low, i.high });
}

} // namespace

nlohmann::json compareRuns(const RunFile& file, const CompareOptions& options, QString* error)
{
    // Arms in the order they first appear; configurations in file order within each.
    std::vector<QString> arms;
    std::map<QString, std::vector<const RunData*>> byArm;
    for (const RunData& run : file.runs) {
        if (run.info.contains("probes"))
            continue; // probe passes measure output stability, not load: `knobscope drift`
        const QString arm = run.arm.isEmpty() ? run.run : run.arm;
        if (!byArm.count(arm))
            arms.push_back(arm);
        byArm[arm].push_back(&run);
    }
    const Slo slo = options.slo ? *options.slo : experimentSlo(file.experiment);
    nlohmann::json out = nlohmann::json::array();
    for (const QString& arm : arms) {
        const std::vector<const RunData*>& runs = byArm[arm];
        const RunData* baseline = runs.front();
        if (!options.baseline.isEmpty()) {
            const auto it = std::find_if(
                runs.begin(), runs.end(), [&](const RunData* r) { return r->config == options.baseline; });
            if (it == runs.end()) {
                *error = QStringLiteral("arm \"%1\" has no configuration \"%2\"").arg(arm, options.baseline);
                return nullptr;
            }
            baseline = *it;
        }
        const nlohmann::json baseWorkload = workloadOf(*baseline);
        bool workloadsDiffer = false;
        for (const RunData* run : runs) {
            QString problem;
            if (Workload::sameWorkload(baseWorkload, workloadOf(*run), &problem))
                continue;
            workloadsDiffer = true;
            if (options.allowDifferentWorkloads)
                continue;
            *error = QStringLiteral("arm \"%1\": %2 and %3 ran different workloads (%4); their latencies are not "
                                    "comparable (--allow-different-workloads compares them anyway, marked)")
                         .arg(arm, baseline->config, run->config, problem);
            return nullptr;
        }
        const std::vector<Series> baseSeries = seriesOf(*baseline);
        const nlohmann::json baseSummary = summarizeRun(baseline->run, baseline->config, arm, baseline->requests, slo);
        bool allGentle = true;
        nlohmann::json configs = nlohmann::json::array();
        for (const RunData* run : runs) {
            const nlohmann::json s = summarizeRun(run->run, run->config, arm, run->requests, slo);
            const std::vector<Series> series = seriesOf(*run);
            nlohmann::json entry = { { "config", run->config.toStdString() }, { "run", run->run.toStdString() } };
            nlohmann::json ci = nlohmann::json::object(), ratio = nlohmann::json::object(),
                           ratioCi = nlohmann::json::object(), significant = nlohmann::json::object();
            quint64 seed = options.seed;
            for (std::size_t m = 0; m < series.size(); ++m) {
                const char* key = series[m].key;
                entry[key] = s[key];
                if (series[m].values.empty() || baseSeries[m].values.empty())
                    continue;
                const std::vector<double> values
                    = options.resamples > 0 ? thinned(series[m].values) : std::vector<double>();
                const std::vector<double> baseValues
                    = options.resamples > 0 ? thinned(baseSeries[m].values) : std::vector<double>();
                for (const char* stat : { "p50", "p95", "p99" }) {
                    const double p = std::stod(std::string(stat + 1));
                    const bool intervals = options.resamples > 0;
                    if (intervals)
                        ci[key][stat] = interval(bootstrapPercentileCi(values, p, options.resamples, ++seed));
                    const double baseValue = baseSummary[key].is_null() ? 0 : baseSummary[key][stat].get<double>();
                    if (baseValue <= 0)
                        continue;
                    ratio[key][stat] = s[key][stat].get<double>() / baseValue;
                    if (!intervals)
                        continue;
                    const Interval r = bootstrapRatioCi(baseValues, values, p, options.resamples, ++seed);
                    ratioCi[key][stat] = interval(r);
                    significant[key][stat] = run != baseline && !r.contains(1.0);
                }
            }
            for (const char* key : { "req_per_s", "out_tok_per_s", "goodput_req_per_s" }) {
                entry[key] = s[key];
                const double base = baseSummary[key].get<double>();
                if (base > 0)
                    ratio[key] = s[key].get<double>() / base;
            }
            const int requests = s["requests"].get<int>();
            entry["requests"] = requests;
            entry["errors"] = s["errors"];
            entry["error_rate"] = requests > 0 ? s["errors"].get<double>() / requests : 0.0;
            const nlohmann::json& stored = run->summary;
            const bool gentle = stored.is_object() && stored.value("gentle", false);
            allGentle = allGentle && gentle;
            entry["gentle"] = gentle;
            entry["max_waiting"] = stored.is_object() && stored.contains("server")
                ? stored["server"].value("max_waiting", nlohmann::json(nullptr))
                : nlohmann::json(nullptr);
            if (workloadsDiffer) {
                entry["workload"] = workloadOf(*run);
                entry["workload_differs"] = !Workload::sameWorkload(baseWorkload, entry["workload"], nullptr);
            }
            entry["ci95"] = ci;
            entry["ratio"] = ratio;
            entry["ratio_ci95"] = ratioCi;
            entry["significant"] = significant;
            configs.push_back(entry);
        }
        nlohmann::json armEntry = { { "arm", arm.toStdString() }, { "baseline", baseline->config.toStdString() },
            { "gentle", allGentle }, { "configs", configs } };
        if (slo.any())
            armEntry["slo"] = { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } };
        std::vector<std::string> warnings;
        if (workloadsDiffer) {
            armEntry["different_workloads"] = true;
            warnings.push_back("the configurations of this arm ran different workloads (prompts, lengths or prompt "
                               "file): differences are not the configurations' alone");
        }
        if (allGentle)
            warnings.push_back("this arm never queued on any configuration, so it cannot show a queueing cliff");
        if (!warnings.empty())
            armEntry["warning"] = warnings.size() == 1 ? warnings[0] : warnings[0] + "; " + warnings[1];
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

RunFile mergeRunFiles(const RunFile& first, const QString& firstName, const RunFile& second, const QString& secondName)
{
    RunFile merged;
    merged.experiment = first.experiment;
    for (const auto& [file, name] : { std::pair { &first, firstName }, std::pair { &second, secondName } }) {
        const QString suffix = QStringLiteral(" @") + name;
        for (RunData run : file->runs) {
            run.config += suffix;
            run.run = run.config + QLatin1Char('/') + run.arm;
            for (RequestRecord& r : run.requests)
                r.run = run.run;
            merged.runs.push_back(std::move(run));
        }
        for (const RunFileIssue& issue : file->issues)
            merged.issues.push_back({ issue.line, name + QStringLiteral(": ") + issue.message });
        merged.truncated = merged.truncated || file->truncated;
        merged.lines += file->lines;
    }
    // compareRuns() keeps arms in first-seen order and configurations in file order within each.
    return merged;
}

} // namespace ks
