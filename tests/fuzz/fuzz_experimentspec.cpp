// The experiment-spec validator (core/spec/experimentspec.h) on any document,
// then what the runner derives from a spec it accepted: the server argv and the
// load of every arm and probe pass. A spec that validates must be safe to run.
#include "fuzzinput.h"

#include "spec/experimentspec.h"
#include "workload/probeset.h"

#include <memory>

namespace {

std::shared_ptr<const ks::ProbeSet> builtinProbes()
{
    static const std::shared_ptr<const ks::ProbeSet> set = [] {
        auto loaded = ks::loadProbeSet(QStringLiteral("builtin:quality-50"));
        KS_FUZZ_CHECK(std::holds_alternative<ks::ProbeSet>(loaded));
        return std::make_shared<const ks::ProbeSet>(std::get<ks::ProbeSet>(std::move(loaded)));
    }();
    return set;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    const auto parsed = ks::parseExperimentSpec(json);
    if (const auto* errors = std::get_if<std::vector<ks::SpecError>>(&parsed)) {
        KS_FUZZ_CHECK(!errors->empty());
        for (const ks::SpecError& e : *errors)
            KS_FUZZ_CHECK(!e.toString().isEmpty());
        return 0;
    }
    const ks::ExperimentSpec& spec = std::get<ks::ExperimentSpec>(parsed);
    KS_FUZZ_CHECK(!spec.configs.empty());
    KS_FUZZ_CHECK(!spec.arms.empty() || spec.probes);
    for (const ks::ConfigSpec& config : spec.configs) {
        const QStringList argv = spec.serverCommand(config);
        KS_FUZZ_CHECK(spec.server ? argv.size() == spec.server->command.size() : argv.isEmpty());
        for (const ks::ArmSpec& arm : spec.arms) {
            const ks::LoadSpec load = spec.loadSpec(config, arm);
            (void)load.validate();
        }
        if (spec.probes) {
            for (int restart = 0; restart < 2; ++restart) {
                const ks::LoadSpec load = spec.probeLoadSpec(config, builtinProbes(), restart);
                (void)load.validate();
            }
        }
    }
    return 0;
}
