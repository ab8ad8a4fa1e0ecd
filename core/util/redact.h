#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace ks {

/// Keeps secrets out of run files and logs (the rule is in
/// docs/formats.md). A flag whose name mentions a key, token, secret, password
/// or credential has its value replaced by kRedacted, in both `--flag VALUE`
/// and `--flag=VALUE` forms.
inline const QString kRedacted = QStringLiteral("[redacted]");
QStringList redactArgv(const QStringList& argv);
/// A line of server output: the value of an Authorization header or a Bearer
/// token, and `NAME=VALUE` / `NAME: VALUE` pairs whose NAME mentions a key,
/// token, secret or password, are replaced by kRedacted.
QString redactLine(const QString& line);
/// `NAME=VALUE` for each variable of a server's environment, secret-named values redacted.
QStringList redactEnv(const QList<QPair<QString, QString>>& env);
/// The spec as written to the run file: server.command and server.env values
/// redacted as above.
nlohmann::json redactSpec(nlohmann::json spec);

} // namespace ks
