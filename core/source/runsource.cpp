#include "source/runsource.h"

namespace ks {

ExperimentInfo experimentInfoFromLine(nlohmann::json line)
{
    ExperimentInfo info;
    if (line.is_object()) {
        auto text = [&line](const char* key) {
            const auto it = line.find(key);
            return it != line.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
        };
        info.tool = text("tool");
        info.startedAt = text("started_at");
        const auto spec = line.find("spec");
        info.hasProbes = spec != line.end() && spec->is_object() && spec->value("probes", nlohmann::json()).is_object();
    }
    info.line = std::move(line);
    return info;
}

void registerRunSourceTypes()
{
    qRegisterMetaType<ExperimentInfo>();
    qRegisterMetaType<RunInfo>();
    qRegisterMetaType<RoundDecision>();
    qRegisterMetaType<nlohmann::json>();
    qRegisterMetaType<RunSummary>();
    qRegisterMetaType<RunSnapshot>();
    qRegisterMetaType<LoadProgress>();
    qRegisterMetaType<std::shared_ptr<const RunData>>();
}

} // namespace ks
