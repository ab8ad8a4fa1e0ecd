#include "experiment/steercommand.h"

#include "load/loadrunner.h"

#include <QStringList>

#include <cmath>

namespace ks {

SteerCommand parseSteerCommand(const QString& line)
{
    const QString trimmed = line.trimmed();
    if (trimmed.isEmpty() || trimmed.startsWith(QLatin1Char('#')))
        return {};
    const QStringList words = trimmed.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString& verb = words.front();
    auto invalid = [](const QString& error) { return SteerCommand { SteerCommand::Kind::Invalid, 0, error }; };
    if (verb == QLatin1String("stop")) {
        if (words.size() != 1)
            return invalid(QStringLiteral("'stop' takes no value"));
        return { SteerCommand::Kind::Stop, 0, {} };
    }
    if (verb != QLatin1String("concurrency") && verb != QLatin1String("rate"))
        return invalid(QStringLiteral("unknown command '%1' (expected: concurrency N, rate R or stop)").arg(verb));
    if (words.size() != 2)
        return invalid(QStringLiteral("'%1' takes one number").arg(verb));
    bool ok = false;
    const double value = words[1].toDouble(&ok);
    if (verb == QLatin1String("concurrency")) {
        if (!ok || value != std::floor(value) || value < 1 || value > kMaxSteeredConcurrency)
            return invalid(QStringLiteral("concurrency: expected a whole number 1 to %1, got '%2'")
                               .arg(kMaxSteeredConcurrency)
                               .arg(words[1]));
        return { SteerCommand::Kind::Concurrency, value, {} };
    }
    if (!ok || !std::isfinite(value) || value <= 0)
        return invalid(QStringLiteral("rate: expected requests per second above 0, got '%1'").arg(words[1]));
    return { SteerCommand::Kind::Rate, value, {} };
}

} // namespace ks
