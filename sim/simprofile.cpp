#include "simprofile.h"

namespace kssim {

namespace {

SimProfile make18b()
{
    SimProfile p;
    p.name = QStringLiteral("sim-1.8b");
    p.stepBaseUs = 15500;
    p.stepPerSeqUs = 10;
    p.prefillPerTokenUs = 22;
    p.kvCacheTokens = 400000;
    p.meanOutputTokens = 180;
    return p;
}

SimProfile make8b()
{
    SimProfile p;
    p.name = QStringLiteral("sim-8b");
    p.stepBaseUs = 24000;
    p.stepPerSeqUs = 15;
    p.prefillPerTokenUs = 95;
    p.kvCacheTokens = 160000;
    p.meanOutputTokens = 220;
    return p;
}

SimProfile makeReasoning()
{
    SimProfile p = make8b();
    p.name = QStringLiteral("sim-reasoning");
    p.meanOutputTokens = 400;
    p.reasoning = true;
    p.reasoningShare = 0.4;
    p.driftWithinProcess = 0.20;
    p.driftAcrossRestart = 0.24;
    return p;
}

} // namespace

std::optional<SimProfile> findProfile(const QString& name)
{
    for (const SimProfile& p : { make18b(), make8b(), makeReasoning() }) {
        if (p.name == name)
            return p;
    }
    return std::nullopt;
}

QStringList profileNames()
{
    return { QStringLiteral("sim-1.8b"), QStringLiteral("sim-8b"), QStringLiteral("sim-reasoning") };
}

} // namespace kssim
