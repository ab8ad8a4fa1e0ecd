#include "faultplan.h"

namespace kssim {

QString faultName(Fault fault)
{
    switch (fault) {
    case Fault::None:
        return QStringLiteral("none");
    case Fault::Http500:
        return QStringLiteral("http_500");
    case Fault::Http429:
        return QStringLiteral("http_429");
    case Fault::DisconnectMid:
        return QStringLiteral("disconnect_mid");
    case Fault::Malformed:
        return QStringLiteral("malformed_event");
    case Fault::ErrorEvent:
        return QStringLiteral("error_event");
    case Fault::Stall:
        return QStringLiteral("stall");
    }
    return {};
}

FaultPlan::FaultPlan(FaultRates rates, std::uint64_t seed)
    : m_rates(rates)
    , m_rng(quint64(seed))
{
}

Fault FaultPlan::draw()
{
    if (m_rates.total() <= 0)
        return Fault::None;
    double u = m_rng.generateDouble();
    const std::pair<double, Fault> table[] = {
        { m_rates.http500, Fault::Http500 },
        { m_rates.http429, Fault::Http429 },
        { m_rates.disconnectMid, Fault::DisconnectMid },
        { m_rates.malformed, Fault::Malformed },
        { m_rates.errorEvent, Fault::ErrorEvent },
        { m_rates.stall, Fault::Stall },
    };
    for (const auto& [rate, fault] : table) {
        if (u < rate)
            return fault;
        u -= rate;
    }
    return Fault::None;
}

} // namespace kssim
