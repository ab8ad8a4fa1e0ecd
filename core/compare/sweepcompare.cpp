#include "compare/sweepcompare.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <set>

namespace ks {

namespace {

bool isSweepStep(const nlohmann::json& step)
{
    return step.is_object() && step.contains("arm") && step["arm"].is_string();
}

} // namespace

nlohmann::json sweepStepOf(const RunData& run)
{
    if (run.info.is_object())
        if (const auto step = run.info.find("sweep"); step != run.info.end() && isSweepStep(*step))
            return *step;
    if (run.summary && isSweepStep(run.summary->sweep))
        return run.summary->sweep;
    return nullptr;
}

std::vector<SweepRuns> sweepRunsOf(const RunFile& file)
{
    std::vector<SweepRuns> out;
    for (const RunData& run : file.runs) {
        const nlohmann::json step = sweepStepOf(run);
        if (step.is_null())
            continue;
        const auto* sweep = &step;
        const QString arm = QString::fromStdString(sweep->value("arm", std::string()));
        auto it = std::find_if(out.begin(), out.end(), [&](const SweepRuns& s) { return s.arm == arm; });
        if (it == out.end()) {
            out.push_back({ arm, QString::fromStdString(sweep->value("over", std::string("rate"))), {} });
            it = std::prev(out.end());
        }
        it->runs.push_back(&run);
    }
    return out;
}

SweepPoint sweepPointOf(const RunData& run, const Slo& slo)
{
    nlohmann::json s = summarizeRun(run.run, run.config, run.arm, run.requests, slo);
    s["sweep"] = sweepStepOf(run);
    if (s["sweep"].is_null())
        s["sweep"] = nlohmann::json::object();
    if (run.info.contains("repeat"))
        s["repeat"] = run.info["repeat"];
    if (run.summary && run.summary->sweep.is_object() && run.summary->sweep.contains("stop"))
        s["sweep"]["stop"] = run.summary->sweep["stop"];
    return *sweepPoint(s, slo);
}

nlohmann::json sweepCompareEntry(const SweepRuns& sweep, const Slo& slo)
{
    std::vector<QString> configs;
    std::map<QString, std::vector<SweepPoint>> byConfig;
    std::set<double> values;
    for (const RunData* run : sweep.runs) {
        if (!byConfig.count(run->config))
            configs.push_back(run->config);
        SweepPoint point = sweepPointOf(*run, slo);
        if (point.value)
            values.insert(*point.value);
        byConfig[run->config].push_back(std::move(point));
    }
    nlohmann::json capacity = nlohmann::json::object(), achievedAt = nlohmann::json::object(),
                   stop = nlohmann::json::object(), points = nlohmann::json::object();
    for (const QString& config : configs) {
        const std::vector<SweepPoint>& list = byConfig[config];
        const std::optional<double> c = sweepCapacity(list);
        capacity[config.toStdString()] = c ? nlohmann::json(*c) : nlohmann::json(nullptr);
        const std::optional<double> achieved = c ? achievedAtCapacity(list, *c) : std::nullopt;
        achievedAt[config.toStdString()] = achieved ? nlohmann::json(*achieved) : nlohmann::json(nullptr);
        nlohmann::json array = nlohmann::json::array();
        for (const SweepPoint& p : list) {
            auto value = [](double v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
            array.push_back({ { "run", p.run.toStdString() }, { "step", p.step.toStdString() },
                { "value", p.value ? nlohmann::json(*p.value) : nlohmann::json(nullptr) }, { "repeat", p.repeat },
                { "achieved_req_per_s", p.achievedReqPerS }, { "ttft_p50_ms", value(p.ttftP50) },
                { "ttft_p99_ms", value(p.ttftP99) }, { "tpot_p50_ms", value(p.tpotP50) },
                { "tpot_p99_ms", value(p.tpotP99) }, { "meets_slo", p.verdict.meetsSlo },
                { "kept_up", p.verdict.keptUp } });
            if (!p.stop.isEmpty())
                stop[config.toStdString()] = p.stop.toStdString();
        }
        points[config.toStdString()] = array;
    }
    nlohmann::json entry = { { "arm", sweep.arm.toStdString() },
        { "baseline", configs.empty() ? std::string() : configs.front().toStdString() }, { "gentle", false },
        { "configs", nlohmann::json::array() },
        { "sweep",
            { { "over", sweep.over.toStdString() }, { "values", std::vector<double>(values.begin(), values.end()) },
                { "capacity", capacity }, { "capacity_achieved_req_per_s", achievedAt }, { "stop", stop },
                { "points", points }, { "configs", nlohmann::json::array() } } } };
    for (const QString& config : configs)
        entry["sweep"]["configs"].push_back(config.toStdString());
    if (slo.any())
        entry["slo"] = { { "ttft_ms", slo.ttftMs }, { "tpot_ms", slo.tpotMs } };
    return entry;
}

QString sweepCapacityLine(const ComparedArm& arm)
{
    nlohmann::json entry = { { "sweep", arm.sweep } };
    if (arm.slo)
        entry["slo"] = { { "ttft_ms", arm.slo->ttftMs }, { "tpot_ms", arm.slo->tpotMs } };
    return sweepCapacityLine(entry);
}

QString sweepCapacityLine(const nlohmann::json& arm)
{
    const auto sweep = arm.find("sweep");
    if (sweep == arm.end() || !sweep->is_object())
        return {};
    const bool rate = sweep->value("over", std::string("rate")) == "rate";
    QStringList bounds;
    const nlohmann::json slo = arm.value("slo", nlohmann::json::object());
    for (const auto& [key, label] : { std::pair { "ttft_ms", "TTFT" }, std::pair { "tpot_ms", "TPOT" } })
        if (slo.value(key, 0.0) > 0)
            bounds << QStringLiteral("%1 p99 ≤ %2 ms").arg(QLatin1String(label)).arg(slo.value(key, 0.0));
    const QString within = bounds.isEmpty() ? QStringLiteral("without an SLO (keeping up only)")
                                            : QStringLiteral("within ") + bounds.join(QStringLiteral(" and "));
    QStringList parts;
    bool first = true;
    const nlohmann::json configs = sweep->value("configs", nlohmann::json::array());
    for (const auto& name : configs) {
        const std::string config = name.get<std::string>();
        const nlohmann::json c = sweep->value("capacity", nlohmann::json::object()).value(config, nlohmann::json());
        QString part = QString::fromStdString(config);
        const nlohmann::json achieved
            = sweep->value("capacity_achieved_req_per_s", nlohmann::json::object()).value(config, nlohmann::json());
        if (c.is_number())
            part += QStringLiteral(" sustains ")
                + capacityText(c.get<double>(),
                    achieved.is_number() ? std::optional<double>(achieved.get<double>()) : std::nullopt, rate);
        else
            part += QStringLiteral(" sustains none of its steps");
        if (first)
            part += QLatin1Char(' ') + within;
        parts << part;
        first = false;
    }
    return parts.join(QStringLiteral("; "));
}

ComparedSweep comparedSweepOf(const ComparedArm& arm)
{
    ComparedSweep out;
    if (!arm.sweep.is_object())
        return out;
    const nlohmann::json& sweep = arm.sweep;
    out.overRate = sweep.value("over", std::string("rate")) == "rate";
    const nlohmann::json configs = sweep.value("configs", nlohmann::json::array());
    const nlohmann::json points = sweep.value("points", nlohmann::json::object());
    for (const nlohmann::json& config : configs) {
        if (!config.is_string())
            continue;
        const QString label = QString::fromStdString(config.get<std::string>());
        out.configs << label;
        std::vector<SweepPoint>& list = out.points[label];
        for (const nlohmann::json& p : points.value(config.get<std::string>(), nlohmann::json::array())) {
            if (!p.is_object())
                continue;
            SweepPoint point;
            point.config = label;
            point.run = QString::fromStdString(p.value("run", std::string()));
            point.step = QString::fromStdString(p.value("step", std::string()));
            if (p.value("value", nlohmann::json()).is_number())
                point.value = p["value"].get<double>();
            point.repeat = p.value("repeat", 1);
            point.achievedReqPerS = p.value("achieved_req_per_s", 0.0);
            auto ms = [&](const char* key) {
                const nlohmann::json v = p.value(key, nlohmann::json());
                return v.is_number() ? v.get<double>() : -1.0;
            };
            point.ttftP50 = ms("ttft_p50_ms");
            point.ttftP99 = ms("ttft_p99_ms");
            point.tpotP50 = ms("tpot_p50_ms");
            point.tpotP99 = ms("tpot_p99_ms");
            point.verdict.meetsSlo = p.value("meets_slo", true);
            point.verdict.keptUp = p.value("kept_up", true);
            list.push_back(std::move(point));
        }
    }
    const nlohmann::json stops = sweep.value("stop", nlohmann::json::object()); // items() refers to it: not a temporary
    for (const auto& [config, reason] : stops.items())
        out.stops[QString::fromStdString(config)]
            = reason.is_string() ? QString::fromStdString(reason.get<std::string>()) : QString();
    return out;
}

} // namespace ks
