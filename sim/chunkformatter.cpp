#include "chunkformatter.h"

#include "vocabulary.h"

#include <nlohmann/json.hpp>

namespace kssim {

ChunkFormatter::ChunkFormatter(Endpoint endpoint, const QByteArray& id, qint64 created, const QString& model)
    : m_endpoint(endpoint)
    , m_id(id)
    , m_created(created)
    , m_modelName(model.toUtf8())
    , m_model(jsonEscape(m_modelName))
{
    const QByteArray object = endpoint == Endpoint::Chat ? "chat.completion.chunk" : "text_completion";
    m_head = "{\"id\":\"" + m_id + "\",\"object\":\"" + object + "\",\"created\":" + QByteArray::number(m_created)
        + ",\"model\":\"" + m_model + "\",\"choices\":[";
}

QByteArray ChunkFormatter::roleChunk() const
{
    return m_head
        + "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]"
          "}";
}

QByteArray ChunkFormatter::tokenChunk(const QByteArray& escapedText, bool reasoning, const char* finishReason) const
{
    QByteArray out;
    out.reserve(m_head.size() + escapedText.size() + 120);
    out += m_head;
    if (m_endpoint == Endpoint::Chat) {
        out += reasoning ? "{\"index\":0,\"delta\":{\"reasoning_content\":\""
                         : "{\"index\":0,\"delta\":{\"content\":\"";
        out += escapedText;
        out += "\"},\"logprobs\":null,\"finish_reason\":";
    } else {
        out += "{\"index\":0,\"text\":\"";
        out += escapedText;
        out += "\",\"logprobs\":null,\"finish_reason\":";
    }
    if (finishReason) {
        out += '"';
        out += finishReason;
        out += "\",\"stop_reason\":null}]}";
    } else {
        out += m_endpoint == Endpoint::Chat ? "null}]}" : "null,\"stop_reason\":null}]}";
    }
    return out;
}

QByteArray ChunkFormatter::toolCallOpenChunk(const QByteArray& callId, const QByteArray& escapedName) const
{
    return m_head + "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" + callId
        + "\",\"type\":\"function\",\"function\":{\"name\":\"" + escapedName
        + "\"}}]},\"logprobs\":null,\"finish_reason\":null}]}";
}

QByteArray ChunkFormatter::toolCallArgumentsChunk(const QByteArray& escapedFragment, const char* finishReason) const
{
    QByteArray out = m_head + "{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\""
        + escapedFragment + "\"}}]},\"logprobs\":null,\"finish_reason\":";
    if (finishReason)
        out += QByteArray("\"") + finishReason + "\",\"stop_reason\":null}]}";
    else
        out += "null}]}";
    return out;
}

QByteArray ChunkFormatter::usageChunk(int promptTokens, int completionTokens) const
{
    return m_head + "],\"usage\":{\"prompt_tokens\":" + QByteArray::number(promptTokens)
        + ",\"total_tokens\":" + QByteArray::number(promptTokens + completionTokens)
        + ",\"completion_tokens\":" + QByteArray::number(completionTokens) + "}}";
}

QByteArray ChunkFormatter::fullResponse(const QByteArray& content, const QByteArray& reasoning,
    const char* finishReason, int promptTokens, int completionTokens) const
{
    using nlohmann::json;
    json choice
        = { { "index", 0 }, { "logprobs", nullptr }, { "finish_reason", finishReason }, { "stop_reason", nullptr } };
    if (m_endpoint == Endpoint::Chat) {
        json message = { { "role", "assistant" }, { "content", content.toStdString() } };
        if (!reasoning.isEmpty())
            message["reasoning_content"] = reasoning.toStdString();
        choice["message"] = message;
    } else {
        choice["text"] = content.toStdString();
    }
    json body = { { "id", m_id.toStdString() },
        { "object", m_endpoint == Endpoint::Chat ? "chat.completion" : "text_completion" }, { "created", m_created },
        { "model", m_modelName.toStdString() }, { "choices", json::array({ choice }) },
        { "usage",
            { { "prompt_tokens", promptTokens }, { "total_tokens", promptTokens + completionTokens },
                { "completion_tokens", completionTokens } } } };
    return QByteArray::fromStdString(body.dump());
}

} // namespace kssim
