#pragma once

#include <QRandomGenerator>
#include <QString>

#include <cstdint>

namespace kssim {

enum class Fault { None, Http500, Http429, DisconnectMid, Malformed, ErrorEvent, Stall };

QString faultName(Fault fault);

/// Which fraction of completion requests gets which fault. The fractions are
/// exclusive (one request gets at most one fault) and must sum to at most 1.
struct FaultRates {
    double http500 = 0;
    double http429 = 0;
    double disconnectMid = 0;
    double malformed = 0;
    double errorEvent = 0;
    double stall = 0;
    int stallMs = 5000;
    int retryAfterS = 1;

    double total() const { return http500 + http429 + disconnectMid + malformed + errorEvent + stall; }
};

class FaultPlan {
public:
    FaultPlan(FaultRates rates, std::uint64_t seed);
    Fault draw();
    const FaultRates& rates() const { return m_rates; }

private:
    FaultRates m_rates;
    QRandomGenerator m_rng;
};

} // namespace kssim
