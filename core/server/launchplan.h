#pragma once

#include "spec/experimentspec.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <vector>

namespace ks {

/// One server start: a configuration's argv and extra environment with the
/// placeholders filled (ExperimentSpec::serverCommand / serverEnvironment).
struct ServerLaunch {
    QString config; ///< the configuration's label
    QStringList argv;
    QList<QPair<QString, QString>> env;
};

/// What running an experiment would start, exactly: every configuration's
/// server command, in one working directory. The dashboard shows it before it
/// runs a command from a file it has not been told to trust, and remembers the
/// answer by fingerprint().
struct LaunchPlan {
    std::vector<ServerLaunch> launches; ///< empty: the target is an external server; nothing is started
    QString workingDirectory;

    bool isEmpty() const { return launches.empty(); }
    /// SHA-256 (hex) over the distinct argv/environment pairs and the working
    /// directory: equal exactly when the same commands would run in the same
    /// place, whatever the configurations are called or in which order they come.
    QByteArray fingerprint() const;
};

/// The plan of `spec` run from `workingDirectory` (the launcher starts servers
/// in knobscope's own working directory).
LaunchPlan launchPlan(const ExperimentSpec& spec, const QString& workingDirectory);

/// `words` as one line a POSIX shell reads back as the same words: a word with
/// anything beyond letters, digits and `@%+=:,./_-` is put in single quotes.
QString shellQuoted(const QStringList& words);

/// `NAME=VALUE ... argv`, quoted as by shellQuoted(), ready to paste into a shell.
QString commandLine(const ServerLaunch& launch);

} // namespace ks
