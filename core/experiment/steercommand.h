#pragma once

#include <QString>

namespace ks {

/// One line of live control (`knobscope run ... --control stdin`, docs/experiments.md,
/// "Steering"): `concurrency N`, `rate R` or `stop`, blank lines and `#`
/// comments ignored.
struct SteerCommand {
    enum class Kind { None, Concurrency, Rate, Stop, Invalid };
    Kind kind = Kind::None;
    double value = 0;
    QString error; ///< Kind::Invalid: what is wrong with the line
};

SteerCommand parseSteerCommand(const QString& line);

} // namespace ks
