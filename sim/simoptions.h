#pragma once

#include "batchengine.h"
#include "faultplan.h"
#include "httprequestparser.h"
#include "wireoptions.h"

#include <QHostAddress>
#include <QString>

namespace kssim {

struct SimOptions {
    QHostAddress host = QHostAddress::LocalHost;
    quint16 port = 8000;
    QString servedModelName;
    EngineConfig engine;
    FaultRates faults;
    std::uint64_t faultSeed = 0;
    std::uint64_t engineSeed = 0; ///< per-process numerics seed (sim-reasoning drift)
    WireOptions wire;
    QString truthLogPath;
    bool truthLogPrompts = false; ///< also write each request's prompt text into the truth log
    /// Stamp arrivals with the kernel's receive time (ArrivalWatch), not when the bytes are read.
    bool kernelArrivalStamps = true;
    HttpRequestParser::Limits limits;
};

} // namespace kssim
