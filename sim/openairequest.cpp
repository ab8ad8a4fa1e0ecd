#include "openairequest.h"

#include "hashing.h"
#include "imageinput.h"
#include "promptblocks.h"
#include "util/boundedjson.h"

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace kssim {

namespace {
// Chat templates wrap every message in role markers; vLLM counts those tokens too.
constexpr int kChatTokensPerMessage = 4;
constexpr int kDefaultCompletionsMaxTokens = 16; // the OpenAI completions default
constexpr int kBytesPerLongToken = 8;

ApiError badRequest(const QString& message, const QString& param = {})
{
    return { 400, message, QStringLiteral("BadRequestError"), param };
}

// OpenAI's content parts: text parts count as text; each image_url part is read
// for its size and charged imageTokens, its blocks keyed by the image's bytes (as
// vLLM keys cached multimodal inputs by their hash).
std::optional<ApiError> addContentParts(const json& parts, CompletionRequest& req, PromptBlocks& blocks)
{
    for (const json& part : parts) {
        const std::string type = part.is_object() && part.value("type", json()).is_string()
            ? part["type"].get<std::string>()
            : std::string();
        if (type == "text" && part.value("text", json()).is_string()) {
            const QByteArray text = QByteArray::fromStdString(part["text"].get<std::string>());
            req.promptTokens += countTokens(text);
            blocks.addText(text);
            continue;
        }
        if (type != "image_url")
            return badRequest(QStringLiteral("content parts must be {\"type\": \"text\", \"text\"} or "
                                             "{\"type\": \"image_url\", \"image_url\": {\"url\"}}"),
                QStringLiteral("messages"));
        const json url
            = part.value("image_url", json::object()).is_object() ? part["image_url"].value("url", json()) : json();
        if (!url.is_string())
            return badRequest(QStringLiteral("image_url needs a string 'url'"), QStringLiteral("messages"));
        auto image = readImageUrl(url.get_ref<const std::string&>());
        if (auto* error = std::get_if<QString>(&image))
            return badRequest(*error, QStringLiteral("messages"));
        const ImageInput& in = std::get<ImageInput>(image);
        ++req.images;
        req.imageTokens += in.tokens;
        req.imageBytes += in.bytes;
        req.promptTokens += in.tokens;
        for (int i = 0; i < in.tokens; ++i)
            blocks.addToken(combine(in.hash, std::uint64_t(i)));
    }
    return std::nullopt;
}
} // namespace

QByteArray errorBody(const ApiError& error)
{
    json body = { { "error",
        { { "message", error.message.toStdString() }, { "type", error.type.toStdString() },
            { "param", error.param.isEmpty() ? json(nullptr) : json(error.param.toStdString()) },
            { "code", error.status } } } };
    return QByteArray::fromStdString(body.dump());
}

int countTokens(const QByteArray& utf8)
{
    int tokens = 0;
    qsizetype wordBytes = 0;
    auto endWord = [&] {
        if (wordBytes > 0)
            tokens += int((wordBytes + kBytesPerLongToken - 1) / kBytesPerLongToken);
        wordBytes = 0;
    };
    for (char c : utf8) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
            endWord();
        else
            ++wordBytes;
    }
    endWord();
    return tokens;
}

std::variant<CompletionRequest, ApiError> parseCompletionRequest(
    const QByteArray& body, Endpoint endpoint, const QString& servedModel, int maxModelLen)
{
    bool tooDeep = false; // a body of a million "[" must not overflow the server's stack
    const json doc = ks::parseJsonBounded(body, &tooDeep);
    if (doc.is_discarded())
        return badRequest(QStringLiteral("request body is not valid JSON"));
    if (tooDeep)
        return badRequest(QStringLiteral("request body nests deeper than %1 levels").arg(ks::kMaxNesting));
    if (!doc.is_object())
        return badRequest(QStringLiteral("request body must be a JSON object"));

    CompletionRequest req;
    req.endpoint = endpoint;
    if (!doc.contains("model") || !doc["model"].is_string())
        return badRequest(QStringLiteral("'model' is required and must be a string"), QStringLiteral("model"));
    req.model = QString::fromStdString(doc["model"].get<std::string>());
    if (req.model != servedModel)
        return ApiError { 404, QStringLiteral("The model `%1` does not exist.").arg(req.model),
            QStringLiteral("NotFoundError"), QStringLiteral("model") };

    if (endpoint == Endpoint::Completions) {
        const json& prompt = doc.value("prompt", json());
        PromptBlocks blocks;
        if (prompt.is_string()) {
            req.promptKey = QByteArray::fromStdString(prompt.get<std::string>());
            req.promptTokens = countTokens(req.promptKey);
            blocks.addText(req.promptKey);
            req.blocks = blocks.takeBlocks();
        } else if (prompt.is_array() && !prompt.empty() && prompt[0].is_number_integer()) {
            req.promptKey = QByteArray::fromStdString(prompt.dump());
            req.promptTokens = int(prompt.size());
            for (const json& token : prompt)
                blocks.addToken(mix64(std::uint64_t(token.is_number_integer() ? token.get<long long>() : -1)));
            req.blocks = blocks.takeBlocks();
        } else {
            return badRequest(
                QStringLiteral("'prompt' must be a string or a list of token ids"), QStringLiteral("prompt"));
        }
    } else {
        PromptBlocks blocks;
        const json& messages = doc.value("messages", json());
        if (!messages.is_array() || messages.empty())
            return badRequest(QStringLiteral("'messages' must be a non-empty list"), QStringLiteral("messages"));
        for (const json& m : messages) {
            if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
                return badRequest(QStringLiteral("each message needs a string 'role'"), QStringLiteral("messages"));
            const json& content = m.value("content", json(""));
            req.promptTokens += kChatTokensPerMessage;
            // The chat template's tokens around each message: the role marker first.
            blocks.addToken(hashBytes(QByteArray::fromStdString("<|" + m["role"].get<std::string>() + "|>")));
            for (int i = 1; i < kChatTokensPerMessage; ++i)
                blocks.addToken(mix64(0x7e4d00 + std::uint64_t(i)));
            if (content.is_array()) {
                if (auto error = addContentParts(content, req, blocks))
                    return *error;
                continue;
            }
            const QByteArray text = content.is_string() ? QByteArray::fromStdString(content.get<std::string>())
                                                        : QByteArray::fromStdString(content.dump());
            req.promptTokens += countTokens(text);
            blocks.addText(text);
        }
        if (req.images == 0) {
            req.promptKey = QByteArray::fromStdString(messages.dump());
        } else {
            // The output depends on the images through their hashes: serializing
            // megabytes of base64 again would cost more than the request's parse.
            json keyed = messages;
            for (json& m : keyed)
                if (m.value("content", json()).is_array())
                    for (json& part : m["content"])
                        if (part.value("type", json()) == "image_url")
                            part["image_url"]["url"] = std::to_string(hashBytes(
                                QByteArray::fromStdString(part["image_url"]["url"].get_ref<const std::string&>())));
            req.promptKey = QByteArray::fromStdString(keyed.dump());
        }
        const json& tools = doc.value("tools", json());
        if (!tools.is_null() && !tools.is_array())
            return badRequest(QStringLiteral("'tools' must be a list"), QStringLiteral("tools"));
        if (tools.is_array() && !tools.empty()) {
            // The chat template puts the tool definitions in the prompt.
            const QByteArray toolText = QByteArray::fromStdString(tools.dump());
            req.promptTokens += countTokens(toolText);
            req.promptKey += toolText;
            blocks.addText(toolText);
            const json& choice = doc.value("tool_choice", json("auto"));
            const json* named = choice.is_object() ? &choice : &tools[0];
            const json function = named->is_object() ? named->value("function", json::object()) : json::object();
            req.toolCall = !(choice.is_string() && choice.get<std::string>() == "none");
            req.toolName = function.is_object() && function.value("name", json()).is_string()
                ? QByteArray::fromStdString(function["name"].get<std::string>())
                : QByteArray("tool");
        }
        req.blocks = blocks.takeBlocks();
    }
    req.promptTokens = std::max(1, req.promptTokens);
    if (req.promptTokens >= maxModelLen)
        return badRequest(QStringLiteral("This model's maximum context length is %1 tokens; the prompt has %2.")
                              .arg(maxModelLen)
                              .arg(req.promptTokens),
            QStringLiteral("prompt"));

    const int room = maxModelLen - req.promptTokens;
    const char* maxKey = doc.contains("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
    if (doc.contains(maxKey) && !doc[maxKey].is_null()) {
        if (!doc[maxKey].is_number_integer() || doc[maxKey].get<long long>() < 1)
            return badRequest(
                QStringLiteral("'%1' must be a positive integer").arg(QLatin1String(maxKey)), QLatin1String(maxKey));
        const long long asked = doc[maxKey].get<long long>();
        if (asked > room)
            return badRequest(QStringLiteral("'%1' is %2 but only %3 tokens fit after the prompt (max context %4)")
                                  .arg(QLatin1String(maxKey))
                                  .arg(asked)
                                  .arg(room)
                                  .arg(maxModelLen),
                QLatin1String(maxKey));
        req.maxTokens = int(asked);
    } else {
        req.maxTokens = endpoint == Endpoint::Completions ? std::min(kDefaultCompletionsMaxTokens, room) : room;
    }

    auto boolField = [&](const char* key, bool fallback) -> std::optional<bool> {
        if (!doc.contains(key) || doc[key].is_null())
            return fallback;
        if (!doc[key].is_boolean())
            return std::nullopt;
        return doc[key].get<bool>();
    };
    const auto stream = boolField("stream", false);
    const auto ignoreEos = boolField("ignore_eos", false);
    if (!stream)
        return badRequest(QStringLiteral("'stream' must be a boolean"), QStringLiteral("stream"));
    if (!ignoreEos)
        return badRequest(QStringLiteral("'ignore_eos' must be a boolean"), QStringLiteral("ignore_eos"));
    req.stream = *stream;
    req.ignoreEos = *ignoreEos;

    if (doc.contains("temperature") && !doc["temperature"].is_null()) {
        if (!doc["temperature"].is_number() || doc["temperature"].get<double>() < 0)
            return badRequest(QStringLiteral("'temperature' must be a number >= 0"), QStringLiteral("temperature"));
        req.temperature = doc["temperature"].get<double>();
    }
    if (doc.contains("seed") && !doc["seed"].is_null()) {
        if (!doc["seed"].is_number_integer())
            return badRequest(QStringLiteral("'seed' must be an integer"), QStringLiteral("seed"));
        req.seed = std::uint64_t(doc["seed"].get<long long>());
    }
    if (doc.contains("stream_options") && doc["stream_options"].is_object()) {
        const json& opts = doc["stream_options"];
        req.includeUsage = opts.value("include_usage", false) == true;
    }
    return req;
}

} // namespace kssim
