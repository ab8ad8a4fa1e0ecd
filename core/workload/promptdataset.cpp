#include "workload/promptdataset.h"

#include <QCryptographicHash>
#include <QFile>

#include <nlohmann/json.hpp>

namespace ks {

namespace {

using json = nlohmann::json;

struct Roles {
    const char* listKey; ///< "messages" / "conversations"
    const char* roleKey; ///< "role" / "from"
    const char* textKey; ///< "content" / "value"
    const char* system;
    const char* user;
    const char* assistant;
};

constexpr Roles kOpenAi { "messages", "role", "content", "system", "user", "assistant" };
constexpr Roles kShareGpt { "conversations", "from", "value", "system", "human", "gpt" };

// One line into a conversation, or the reason it is refused.
std::variant<Conversation, QString> readLine(const json& line, const Roles& roles)
{
    if (!line.is_object())
        return QStringLiteral("expected a JSON object with \"%1\"").arg(QLatin1String(roles.listKey));
    const auto list = line.find(roles.listKey);
    if (list == line.end() || !list->is_array() || list->empty())
        return QStringLiteral("\"%1\" must be a non-empty list").arg(QLatin1String(roles.listKey));
    Conversation conversation;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& m = (*list)[i];
        const QString where = QStringLiteral("%1[%2]").arg(QLatin1String(roles.listKey)).arg(i);
        if (!m.is_object())
            return where + QStringLiteral(": expected an object");
        const auto role = m.find(roles.roleKey);
        const auto text = m.find(roles.textKey);
        if (role == m.end() || !role->is_string())
            return where + QStringLiteral(".%1: expected a string").arg(QLatin1String(roles.roleKey));
        if (text == m.end() || !text->is_string())
            return where + QStringLiteral(".%1: expected a string").arg(QLatin1String(roles.textKey));
        const std::string& r = role->get_ref<const std::string&>();
        const QByteArray content = QByteArray::fromStdString(text->get<std::string>());
        if (r == roles.system) {
            if (!conversation.userTurns.empty())
                return where + QStringLiteral(": a system message after the first user turn is not supported");
            conversation.system.push_back(content);
        } else if (r == roles.user) {
            conversation.userTurns.push_back(content);
        } else if (r != roles.assistant) {
            return where
                + QStringLiteral(".%1: expected \"%2\", \"%3\" or \"%4\", got \"%5\"")
                      .arg(QLatin1String(roles.roleKey), QLatin1String(roles.system), QLatin1String(roles.user),
                          QLatin1String(roles.assistant), QString::fromStdString(r));
        }
    }
    if (conversation.userTurns.empty())
        return QStringLiteral("the conversation has no \"%1\" turn").arg(QLatin1String(roles.user));
    return conversation;
}

} // namespace

QString formatName(PromptDataset::Format format)
{
    return format == PromptDataset::Format::ShareGpt ? QStringLiteral("sharegpt") : QStringLiteral("openai");
}

std::variant<PromptDataset, QString> parsePromptDataset(
    const QByteArray& bytes, PromptDataset::Format format, const QString& path)
{
    PromptDataset dataset;
    dataset.path = path;
    dataset.format = format;
    dataset.sha256 = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    const Roles& roles = format == PromptDataset::Format::ShareGpt ? kShareGpt : kOpenAi;
    qsizetype start = 0;
    int lineNo = 0;
    while (start < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', start);
        if (end < 0)
            end = bytes.size();
        const QByteArray line = bytes.mid(start, end - start).trimmed();
        start = end + 1;
        ++lineNo;
        if (line.isEmpty())
            continue;
        const json doc = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (doc.is_discarded())
            return QStringLiteral("%1: line %2: not valid JSON").arg(path).arg(lineNo);
        auto conversation = readLine(doc, roles);
        if (auto* error = std::get_if<QString>(&conversation))
            return QStringLiteral("%1: line %2: %3").arg(path).arg(lineNo).arg(*error);
        dataset.conversations.push_back(std::move(std::get<Conversation>(conversation)));
    }
    if (dataset.conversations.empty())
        return QStringLiteral("%1: no conversations in the file").arg(path);
    return dataset;
}

std::variant<PromptDataset, QString> loadPromptDataset(const QString& path, PromptDataset::Format format)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read prompt file %1: %2").arg(path, file.errorString());
    return parsePromptDataset(file.readAll(), format, path);
}

} // namespace ks
