#include "api/chunkdecoder.h"

#include <nlohmann/json.hpp>

namespace ks {

namespace {

using nlohmann::json;

void appendString(QByteArray& out, const json& object, const char* key, bool& nonEmpty)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return;
    const std::string& s = it->get_ref<const std::string&>();
    if (s.empty())
        return;
    out.append(s.data(), qsizetype(s.size()));
    nonEmpty = true;
}

} // namespace

ChunkInfo decodeChunk(const QByteArray& payload, ApiKind api)
{
    ChunkInfo info;
    if (payload == "[DONE]") {
        info.kind = ChunkInfo::Kind::Done;
        return info;
    }
    const json doc = json::parse(payload.begin(), payload.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        info.kind = ChunkInfo::Kind::Undecodable;
        info.errorMessage = QStringLiteral("event is not a JSON object: ") + QString::fromUtf8(payload.left(80));
        return info;
    }
    if (const auto error = doc.find("error"); error != doc.end() && !error->is_null()) {
        info.kind = ChunkInfo::Kind::Error;
        if (error->is_object() && error->contains("message") && (*error)["message"].is_string())
            info.errorMessage = QString::fromStdString((*error)["message"].get<std::string>());
        else
            info.errorMessage = QString::fromStdString(error->dump());
        return info;
    }
    if (const auto usage = doc.find("usage"); usage != doc.end() && usage->is_object()) {
        if (usage->contains("completion_tokens") && (*usage)["completion_tokens"].is_number_integer())
            info.completionTokens = (*usage)["completion_tokens"].get<int>();
        if (usage->contains("prompt_tokens") && (*usage)["prompt_tokens"].is_number_integer())
            info.promptTokens = (*usage)["prompt_tokens"].get<int>();
    }
    const auto choices = doc.find("choices");
    if (choices == doc.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
        return info;
    const json& choice = (*choices)[0];
    if (const auto finish = choice.find("finish_reason"); finish != choice.end() && !finish->is_null())
        info.finished = true;

    bool content = false;
    bool reasoning = false;
    bool toolCalls = false;
    if (api == ApiKind::Completions) {
        appendString(info.content, choice, "text", content);
    } else {
        const auto delta = choice.find("delta");
        if (delta != choice.end() && delta->is_object()) {
            appendString(info.content, *delta, "content", content);
            appendString(info.reasoning, *delta, "reasoning_content", reasoning);
            appendString(info.reasoning, *delta, "reasoning", reasoning);
            const auto tools = delta->find("tool_calls");
            toolCalls = tools != delta->end() && tools->is_array() && !tools->empty();
        }
    }
    info.hasContent = content;
    info.hasToken = content || reasoning || toolCalls;
    return info;
}

} // namespace ks
