#include "spec/calibrationplan.h"

#include <algorithm>

namespace ks {

QString applyCalibrationPlan(ExperimentSpec& spec, int runs, const QString& baseline)
{
    if (runs < kMinCalibrationRuns)
        return QStringLiteral("--aa: expected a whole number of runs of at least %1 (two runs give one difference, "
                              "no spread), got %2")
            .arg(kMinCalibrationRuns)
            .arg(runs);
    if (spec.search)
        return QStringLiteral("--aa: a spec with \"search\" has no fixed configuration to calibrate; write the value "
                              "you want calibrated into a configuration and leave the search out");
    auto config = spec.configs.begin();
    if (!baseline.isEmpty()) {
        QStringList labels;
        for (const ConfigSpec& c : spec.configs)
            labels << c.label;
        config = std::find_if(
            spec.configs.begin(), spec.configs.end(), [&](const ConfigSpec& c) { return c.label == baseline; });
        if (config == spec.configs.end())
            return QStringLiteral("--baseline: no configuration \"%1\" in the spec (configurations: %2)")
                .arg(baseline, labels.join(QStringLiteral(", ")));
    }
    if (config == spec.configs.end())
        return QStringLiteral("--aa: the spec has no configuration");
    std::vector<ArmSpec> arms;
    nlohmann::json rawArms = nlohmann::json::array();
    for (const ArmSpec& arm : spec.arms) {
        if (arm.sweep)
            continue;
        ArmSpec once = arm;
        once.repeats = runs;
        once.repeatsGiven = true;
        arms.push_back(once);
        for (const nlohmann::json& written : spec.raw.value("arms", nlohmann::json::array()))
            if (written.is_object() && written.value("name", std::string()) == arm.name.toStdString()) {
                nlohmann::json kept = written;
                kept.erase("repeats");
                rawArms.push_back(kept);
            }
    }
    if (arms.empty())
        return QStringLiteral("--aa: the spec has no plain arm to run (sweep arms and probe passes are left out of a "
                              "calibration)");
    const ConfigSpec chosen = *config;
    spec.configs = { chosen };
    spec.arms = std::move(arms);
    spec.probes.reset();
    spec.rounds.order = RoundsSpec::Order::Interleaved;
    spec.rounds.until.reset();
    nlohmann::json& raw = spec.raw;
    raw["configs"] = nlohmann::json::array({ { { "label", chosen.label.toStdString() },
        { "model", chosen.model.toStdString() }, { "knobs", chosen.knobs } } });
    raw["arms"] = rawArms;
    raw["repeats"] = runs;
    raw["order"] = "interleaved";
    raw.erase("probes");
    if (spec.server) { // every round a fresh server: the spread between starts is part of what is measured
        spec.server->restartBetweenConfigs = true;
        raw["server"]["restart_between_configs"] = true;
    }
    spec.calibration = { { "config", chosen.label.toStdString() }, { "runs", runs } };
    return {};
}

} // namespace ks
