#include "server/launchplan.h"

#include <QCryptographicHash>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <set>

namespace ks {

namespace {
QString quoted(const QString& word)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9@%+=:,./_-]+$"));
    if (plain.match(word).hasMatch())
        return word;
    QString out = word;
    out.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}
} // namespace

LaunchPlan launchPlan(const ExperimentSpec& spec, const QString& workingDirectory)
{
    LaunchPlan plan;
    plan.workingDirectory = workingDirectory;
    if (!spec.server || spec.server->command.isEmpty())
        return plan;
    for (const ConfigSpec& config : spec.configs)
        plan.launches.push_back({ config.label, spec.serverCommand(config), spec.serverEnvironment(config) });
    return plan;
}

QByteArray LaunchPlan::fingerprint() const
{
    // A set: the same commands under other labels, or repeated, are the same plan.
    std::set<std::string> commands;
    for (const ServerLaunch& launch : launches) {
        nlohmann::json argv = nlohmann::json::array();
        for (const QString& word : launch.argv)
            argv.push_back(word.toStdString());
        nlohmann::json env = nlohmann::json::array();
        for (const auto& [name, value] : launch.env)
            env.push_back({ name.toStdString(), value.toStdString() });
        commands.insert(nlohmann::json { { "argv", argv }, { "env", env } }.dump());
    }
    const nlohmann::json canonical { { "commands", commands }, { "cwd", workingDirectory.toStdString() } };
    const std::string bytes = canonical.dump();
    return QCryptographicHash::hash(QByteArray::fromStdString(bytes), QCryptographicHash::Sha256).toHex();
}

QString shellQuoted(const QStringList& words)
{
    QStringList out;
    out.reserve(words.size());
    for (const QString& word : words)
        out << quoted(word);
    return out.join(QLatin1Char(' '));
}

QString commandLine(const ServerLaunch& launch)
{
    // NAME=VALUE: only the value is quoted, or the shell would not read it as an assignment.
    QStringList words;
    for (const auto& [name, value] : launch.env)
        words << name + QLatin1Char('=') + quoted(value);
    words << shellQuoted(launch.argv);
    return words.join(QLatin1Char(' '));
}

} // namespace ks
