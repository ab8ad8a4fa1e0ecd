#include "launchtrust.h"

#include "window/settings.h"

namespace ks {

LaunchTrust::LaunchTrust(Settings* settings)
    : m_settings(settings)
{
}

void LaunchTrust::loaded(Origin origin, const LaunchPlan& plan)
{
    switch (origin) {
    case Origin::Own:
        m_trusted = true;
        break;
    case Origin::NamedToRun:
        trust(plan);
        m_trusted = true; // also when it does not validate yet: the user named it
        break;
    case Origin::File:
        m_trusted = !plan.isEmpty() && m_settings->isLaunchTrusted(plan.fingerprint());
        break;
    }
}

void LaunchTrust::saved(const LaunchPlan& plan)
{
    if (m_trusted && !plan.isEmpty())
        m_settings->trustLaunch(plan.fingerprint());
}

bool LaunchTrust::mustAsk(const LaunchPlan& plan) const
{
    return !plan.isEmpty() && !m_trusted && !m_settings->isLaunchTrusted(plan.fingerprint());
}

void LaunchTrust::trust(const LaunchPlan& plan)
{
    if (!plan.isEmpty())
        m_settings->trustLaunch(plan.fingerprint());
    m_trusted = true;
}

} // namespace ks
