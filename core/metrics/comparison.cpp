#include "metrics/comparison.h"

#include "import/importedrun.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/runsummary.h"

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

// An imported run's figures may be the tool's own (summary-only): docs/formats.md, "Importing".
nlohmann::json summaryOf(const RunData& run, const QString& arm, const Slo& slo)
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
        const std::vector<Series> baseSeries = seriesOf(*baseline);
        const nlohmann::json baseSummary = summaryOf(*baseline, arm, slo);
        bool allGentle = true;
        bool anySummaryOnly = false;
        nlohmann::json configs = nlohmann::json::array();
        for (const RunData* run : runs) {
            const nlohmann::json s = summaryOf(*run, arm, slo);
            const std::vector<Series> series = seriesOf(*run);
            nlohmann::json entry = { { "config", run->config.toStdString() }, { "run", run->run.toStdString() } };
            nlohmann::json ci = nlohmann::json::object(), ratio = nlohmann::json::object(),
                           ratioCi = nlohmann::json::object(), significant = nlohmann::json::object();
            quint64 seed = options.seed;
            for (std::size_t m = 0; m < series.size(); ++m) {
                const char* key = series[m].key;
                entry[key] = s.contains(key) ? s[key] : nlohmann::json(nullptr);
                // Intervals need both runs' requests; a summary-only import has none, so its
                // ratios come without intervals.
                const bool intervals
                    = options.resamples > 0 && !series[m].values.empty() && !baseSeries[m].values.empty();
                const std::vector<double> values = intervals ? thinned(series[m].values) : std::vector<double>();
                const std::vector<double> baseValues
                    = intervals ? thinned(baseSeries[m].values) : std::vector<double>();
                for (const char* stat : { "p50", "p95", "p99" }) {
                    const double p = std::stod(std::string(stat + 1));
                    if (intervals)
                        ci[key][stat] = interval(bootstrapPercentileCi(values, p, options.resamples, ++seed));
                    const std::optional<double> baseValue = statOf(baseSummary, key, stat);
                    const std::optional<double> value = statOf(s, key, stat);
                    if (!baseValue || *baseValue <= 0 || !value)
                        continue;
                    ratio[key][stat] = *value / *baseValue;
                    if (!intervals)
                        continue;
                    const Interval r = bootstrapRatioCi(baseValues, values, p, options.resamples, ++seed);
                    ratioCi[key][stat] = interval(r);
                    significant[key][stat] = run != baseline && !r.contains(1.0);
                }
            }
            if (isSummaryOnly(*run)) {
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
            const nlohmann::json& stored = run->summary;
            const bool gentle = stored.is_object() && stored.value("gentle", false);
            allGentle = allGentle && gentle;
            entry["gentle"] = gentle;
            entry["max_waiting"] = stored.is_object() && stored.contains("server")
                ? stored["server"].value("max_waiting", nlohmann::json(nullptr))
                : nlohmann::json(nullptr);
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
        if (anySummaryOnly)
            armEntry["note"] = "summary-only imports carry only their tool's aggregates: their figures and ratios "
                               "have no 95 % intervals";
        if (allGentle)
            armEntry["warning"] = "this arm never queued on any configuration, so it cannot show a queueing cliff";
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
    if (renameSecond)
        merged.issues.push_back({ 0,
            QStringLiteral("arms \"%1\" (%2) and \"%3\" (%4) have different names; each file has only that one "
                           "load arm, so they are compared as \"%1\"")
                .arg(firstArms.front(), firstName, secondArms.front(), secondName) });
    // compareRuns() keeps arms in first-seen order and configurations in file order within each.
    return merged;
}

} // namespace ks
