#include "util/redact.h"

#include <QRegularExpression>

namespace ks {

namespace {

const QRegularExpression& secretName()
{
    // "token" but not "tokens" or "tokenizer": --max-num-batched-tokens is a knob, not a secret.
    static const QRegularExpression re(
        QStringLiteral("(api[-_]?key|(?<![a-z])key(?![a-z])|token(?![a-z])|secret|passw(or)?d|credential|"
                       "authorization|(?<![a-z])auth(?![a-z]))"),
        QRegularExpression::CaseInsensitiveOption);
    return re;
}

bool isSecretFlag(const QString& arg)
{
    return arg.startsWith(QLatin1Char('-')) && secretName().match(arg).hasMatch();
}

} // namespace

QStringList redactArgv(const QStringList& argv)
{
    QStringList out = argv;
    for (qsizetype i = 0; i < out.size(); ++i) {
        if (!isSecretFlag(out[i]))
            continue;
        const qsizetype eq = out[i].indexOf(QLatin1Char('='));
        if (eq >= 0)
            out[i] = out[i].left(eq + 1) + kRedacted;
        else if (i + 1 < out.size() && !out[i + 1].startsWith(QLatin1String("--")))
            out[++i] = kRedacted;
    }
    return out;
}

QString redactLine(const QString& line)
{
    static const QRegularExpression authorization(
        QStringLiteral("(authorization[\"']?\\s*[:=]\\s*[\"']?)(bearer\\s+|basic\\s+)?[^\\s\"',;}]+"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression bearer(
        QStringLiteral("(bearer\\s+)[A-Za-z0-9._~+/=-]+"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression pair(
        QStringLiteral(
            "([A-Za-z0-9_.-]*(api[-_]?key|token(?![a-z])|secret|passw(or)?d)[A-Za-z0-9_-]*[\"']?\\s*[:=]\\s*[\"']?)"
            "[^\\s\"',;}]+"),
        QRegularExpression::CaseInsensitiveOption);
    QString out = line;
    out.replace(authorization, QStringLiteral("\\1\\2") + kRedacted);
    out.replace(bearer, QStringLiteral("\\1") + kRedacted);
    out.replace(pair, QStringLiteral("\\1") + kRedacted);
    // Flags echoed in output ("--api-key sk-...") are caught by the argv rule.
    QStringList words = out.split(QLatin1Char(' '));
    const QStringList redacted = redactArgv(words);
    return redacted == words ? out : redacted.join(QLatin1Char(' '));
}

nlohmann::json redactSpec(nlohmann::json spec)
{
    if (!spec.is_object())
        return spec;
    const auto server = spec.find("server");
    if (server == spec.end() || !server->is_object())
        return spec;
    if (const auto command = server->find("command"); command != server->end() && command->is_array()) {
        QStringList argv;
        for (const auto& part : *command)
            argv << (part.is_string() ? QString::fromStdString(part.get<std::string>()) : QString());
        const QStringList clean = redactArgv(argv);
        for (std::size_t i = 0; i < command->size(); ++i) {
            if ((*command)[i].is_string())
                (*command)[i] = clean[qsizetype(i)].toStdString();
        }
    }
    if (const auto env = server->find("env"); env != server->end() && env->is_object()) {
        for (auto& [name, value] : env->items()) {
            if (secretName().match(QString::fromStdString(name)).hasMatch())
                value = kRedacted.toStdString();
        }
    }
    return spec;
}

QStringList redactEnv(const QList<QPair<QString, QString>>& env)
{
    QStringList out;
    for (const auto& [name, value] : env)
        out << name + QLatin1Char('=') + (secretName().match(name).hasMatch() ? kRedacted : value);
    return out;
}

} // namespace ks
