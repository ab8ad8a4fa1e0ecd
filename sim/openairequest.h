#pragma once

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace kssim {

enum class Endpoint { Completions, Chat };

struct CompletionRequest {
    Endpoint endpoint = Endpoint::Completions;
    QString model;
    QByteArray promptKey; ///< the exact prompt (or serialized messages): what the output depends on
    int promptTokens = 0;
    std::vector<std::uint64_t> blocks; ///< the prompt's full KV blocks (PromptBlocks), for the prefix cache
    int maxTokens = 16;
    bool ignoreEos = false;
    double temperature = 1.0;
    std::optional<std::uint64_t> seed;
    bool stream = false;
    bool includeUsage = false;
    /// Chat with `tools` and a `tool_choice` other than "none": the answer is a
    /// call of `toolName` (tool_choice's named function, else the first tool).
    bool toolCall = false;
    QByteArray toolName;
    int images = 0; ///< image_url content parts (chat)
    int imageTokens = 0; ///< their tokens (imageTokens), part of promptTokens
    qint64 imageBytes = 0; ///< their files' bytes
};

/// An error in the OpenAI shape: {"error": {"message", "type", "param", "code"}}.
struct ApiError {
    int status = 400;
    QString message;
    QString type = QStringLiteral("BadRequestError");
    QString param;
};

QByteArray errorBody(const ApiError& error);

/// Whitespace-separated words, long words counted per 8 bytes: a stand-in tokenizer
/// that a client can predict (N words in, N prompt tokens reported).
int countTokens(const QByteArray& utf8);

std::variant<CompletionRequest, ApiError> parseCompletionRequest(
    const QByteArray& body, Endpoint endpoint, const QString& servedModel, int maxModelLen);

} // namespace kssim
