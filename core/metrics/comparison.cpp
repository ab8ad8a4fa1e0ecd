#include "metrics/comparison.h"

#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/runsummary.h"

#include <QFileInfo>

#include <map>

namespace ks {

namespace {

// Bootstrap intervals resample at most this many values of each metric (a
// deterministic stride over file order), keeping compare interactive on long
// runs; point values use all of them (docs/PERFORMANCE.md).
constexpr std::size_t kMaxBootstrapValues = 5000;

struct Series {
    const char* key;
    std::vector<double> values; ///< at most kMaxBootstrapValues, by stride
};

// Every `stride`-th of `count` values, as the bootstrap's sample.
std::vector<double> strided(std::size_t count, const auto& valueAt)
{
    std::vector<double> out;
    const std::size_t n = std::min(count, kMaxBootstrapValues);
    out.reserve(n);
    const double stride = double(count) / double(n);
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(valueAt(count <= kMaxBootstrapValues ? i : std::size_t(double(i) * stride)));
    return out;
}

std::vector<Series> seriesOf(const RunData& run)
{
    const RequestTable& t = run.requests;
    std::vector<double> ttft, tpot, e2e;
    std::vector<std::span<const std::int32_t>> gaps;
    std::size_t gapCount = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const RequestTimes r = t.times(i);
        if (!r.ok || r.warmup)
            continue;
        if (r.ttftUs >= 0)
            ttft.push_back(double(r.ttftUs) / 1000.0);
        if (const double v = r.tpotUs(); v >= 0)
            tpot.push_back(v / 1000.0);
        e2e.push_back(double(r.e2eUs) / 1000.0);
        const std::span<const std::int32_t> g = t.itl(i);
        if (!g.empty())
            gaps.push_back(g);
        gapCount += g.size();
    }
    // The ITL sample strides over the gaps in place: a long run holds millions.
    std::vector<double> itl;
    {
        std::size_t part = 0, before = 0;
        itl = strided(gapCount, [&](std::size_t k) {
            while (k >= before + gaps[part].size())
                before += gaps[part++].size();
            return double(gaps[part][k - before]) / 1000.0;
        });
    }
    auto sample = [](const std::vector<double>& v) { return strided(v.size(), [&](std::size_t k) { return v[k]; }); };
    return { { "ttft_ms", sample(ttft) }, { "tpot_ms", sample(tpot) }, { "itl_ms", std::move(itl) },
        { "e2e_ms", sample(e2e) } };
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
        const bool intervals = options.resamples > 0;
        const std::vector<Series> baseSeries = intervals ? seriesOf(*baseline) : std::vector<Series>();
        const nlohmann::json baseSummary = summarizeRun(baseline->run, baseline->config, arm, baseline->requests, slo);
        bool allGentle = true;
        nlohmann::json configs = nlohmann::json::array();
        for (const RunData* run : runs) {
            const nlohmann::json s = summarizeRun(run->run, run->config, arm, run->requests, slo);
            const std::vector<Series> series = intervals ? seriesOf(*run) : std::vector<Series>();
            nlohmann::json entry = { { "config", run->config.toStdString() }, { "run", run->run.toStdString() } };
            nlohmann::json ci = nlohmann::json::object(), ratio = nlohmann::json::object(),
                           ratioCi = nlohmann::json::object(), significant = nlohmann::json::object();
            const quint64 seed = options.seed;
            static const char* const kKeys[] = { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" };
            static const char* const kStats[] = { "p50", "p95", "p99" };
            static const double kPs[] = { 50, 95, 99 };
            for (std::size_t m = 0; m < std::size(kKeys); ++m) {
                const char* key = kKeys[m];
                entry[key] = s[key];
                if (s[key].is_null() || baseSummary[key].is_null())
                    continue; // no values on one side
                BootstrapIntervals bootstrap;
                if (intervals)
                    bootstrap = bootstrapIntervals(
                        baseSeries[m].values, series[m].values, kPs, options.resamples, seed + 1 + m);
                for (std::size_t k = 0; k < std::size(kStats); ++k) {
                    const char* stat = kStats[k];
                    if (intervals)
                        ci[key][stat] = interval(bootstrap.other[k]);
                    const double baseValue = baseSummary[key][stat].get<double>();
                    if (baseValue <= 0)
                        continue;
                    ratio[key][stat] = s[key][stat].get<double>() / baseValue;
                    if (!intervals)
                        continue;
                    ratioCi[key][stat] = interval(bootstrap.ratio[k]);
                    significant[key][stat] = run != baseline && !bootstrap.ratio[k].contains(1.0);
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

RunFile mergeRunFiles(const RunFile& first, const QString& firstName, const RunFile& second, const QString& secondName)
{
    RunFile merged;
    merged.experiment = first.experiment;
    for (const auto& [file, name] : { std::pair { &first, firstName }, std::pair { &second, secondName } }) {
        const QString suffix = QStringLiteral(" @") + name;
        for (RunData run : file->runs) {
            run.config += suffix;
            run.run = run.config + QLatin1Char('/') + run.arm;
            run.requests.setRun(run.run);
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
