#include "workload/probeset.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QSet>

namespace ks {

namespace {
const QLatin1String kBuiltinPrefix("builtin:");
}

nlohmann::json ProbeSet::identity() const
{
    return { { "set", name.toStdString() }, { "set_version", version.toStdString() },
        { "sha256", sha256.toStdString() }, { "source", source.toStdString() }, { "count", probes.size() } };
}

std::variant<ProbeSet, QString> parseProbeSet(const QByteArray& bytes, const QString& source)
{
    ProbeSet set;
    set.source = source;
    set.sha256 = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    set.name
        = source.startsWith(kBuiltinPrefix) ? source.mid(kBuiltinPrefix.size()) : QFileInfo(source).completeBaseName();
    QSet<QString> ids;
    qsizetype start = 0;
    int lineNo = 0;
    auto lineError = [&](const QString& message) { return QStringLiteral("line %1: %2").arg(lineNo).arg(message); };
    while (start < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', start);
        if (end < 0)
            end = bytes.size();
        const QByteArray line = bytes.mid(start, end - start).trimmed();
        start = end + 1;
        ++lineNo;
        if (line.isEmpty())
            continue;
        const nlohmann::json j
            = nlohmann::json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (j.is_discarded() || !j.is_object())
            return lineError(QStringLiteral("not a JSON object"));
        auto string = [&](const char* key) -> std::optional<QString> {
            const auto it = j.find(key);
            if (it == j.end() || it->is_null())
                return QString();
            if (!it->is_string())
                return std::nullopt;
            return QString::fromStdString(it->get<std::string>());
        };
        if (j.contains("probe_set")) {
            if (set.probes.size() > 0 || !set.version.isEmpty())
                return lineError(QStringLiteral("the probe_set header must be the first line"));
            const auto name = string("probe_set");
            const auto version = string("set_version");
            if (!name || name->isEmpty())
                return lineError(QStringLiteral("'probe_set' must be a non-empty string"));
            if (!version || version->isEmpty())
                return lineError(QStringLiteral("'set_version' must be a non-empty string"));
            set.name = *name;
            set.version = *version;
            continue;
        }
        Probe probe;
        const auto id = string("id");
        if (!id || id->isEmpty())
            return lineError(QStringLiteral("'id' must be a non-empty string"));
        if (ids.contains(*id))
            return lineError(QStringLiteral("duplicate id '%1'").arg(*id));
        probe.id = *id;
        const auto category = string("category");
        const auto prompt = string("prompt");
        if (!category || !prompt)
            return lineError(QStringLiteral("'category' and 'prompt' must be strings"));
        probe.category = *category;
        probe.prompt = *prompt;
        if (const auto it = j.find("messages"); it != j.end() && !it->is_null()) {
            bool valid = it->is_array() && !it->empty();
            for (const auto& m : valid ? *it : nlohmann::json::array())
                valid = valid && m.is_object() && m.contains("role") && m["role"].is_string() && m.contains("content")
                    && m["content"].is_string();
            if (!valid)
                return lineError(
                    QStringLiteral("'messages' must be a non-empty array of {\"role\": string, \"content\": string}"));
            probe.messages = *it;
            if (probe.prompt.isEmpty())
                probe.prompt = QString::fromStdString(it->back()["content"].get<std::string>());
        }
        if (probe.prompt.isEmpty())
            return lineError(QStringLiteral("the probe needs a 'prompt' or 'messages'"));
        ids.insert(probe.id);
        set.probes.push_back(std::move(probe));
    }
    if (set.probes.empty())
        return QStringLiteral("%1: no probes in the file").arg(source);
    if (set.version.isEmpty())
        set.version = QStringLiteral("unversioned");
    return set;
}

std::variant<ProbeSet, QString> loadProbeSet(const QString& reference)
{
    QString path = reference;
    if (reference.startsWith(kBuiltinPrefix))
        path = QStringLiteral(":/probes/") + reference.mid(kBuiltinPrefix.size()) + QStringLiteral(".jsonl");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (reference.startsWith(kBuiltinPrefix))
            return QStringLiteral("unknown probe set '%1' (built in: builtin:quality-50)").arg(reference);
        return QStringLiteral("cannot read probe file %1: %2").arg(reference, file.errorString());
    }
    auto parsed = parseProbeSet(file.readAll(), reference);
    if (auto* error = std::get_if<QString>(&parsed))
        return QStringLiteral("probe file %1: %2").arg(reference, *error);
    return parsed;
}

} // namespace ks
