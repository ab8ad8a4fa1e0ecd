#pragma once

#include <QByteArray>
#include <QString>

#include <string>
#include <vector>

namespace ks {

enum class ApiKind { Completions, Chat };

/// What one SSE data payload of an OpenAI-compatible stream carries, decoded
/// once (docs/metrics.md). A "token" is any non-empty generated text on any
/// channel; a role-only or usage-only chunk is not a token.
struct ChunkInfo {
    enum class Kind { Chunk, Done, Error, Undecodable };
    Kind kind = Kind::Chunk;
    bool hasToken = false; ///< text, content, reasoning, reasoning_content or tool_calls
    bool hasContent = false; ///< text (completions) or content (chat) only
    QByteArray content; ///< UTF-8 of text/content in this chunk
    QByteArray reasoning; ///< UTF-8 of reasoning/reasoning_content in this chunk
    /// One element of delta.tool_calls: a tool call's opening (id, type, function
    /// name) or a fragment of its arguments. `index` -1 and `id` empty when absent.
    struct ToolCallDelta {
        int index = -1;
        std::string id;
    };
    std::vector<ToolCallDelta> toolCalls; ///< empty when the chunk carries none
    bool finished = false; ///< finish_reason present and non-null
    int completionTokens = -1; ///< usage.completion_tokens when present
    int promptTokens = -1;
    int reasoningTokens = -1; ///< usage.completion_tokens_details.reasoning_tokens when present
    /// llama.cpp's `timings` object (the final chunk): the server's own
    /// prefill and generation times. -1: absent. Other keys are ignored.
    struct Timings {
        double promptMs = -1;
        double predictedMs = -1;
        int promptN = -1;
        int predictedN = -1;
        int cacheN = -1;
        bool any() const { return promptMs >= 0 || predictedMs >= 0 || promptN >= 0 || predictedN >= 0 || cacheN >= 0; }
    } timings;
    QString errorMessage; ///< for Error and Undecodable
};

/// Decodes one event payload. Handles the dialects of vLLM (role chunk, usage
/// chunk with empty choices), SGLang, llama.cpp (content null first, usage and
/// timings in the final chunk), Ollama (delta.reasoning, role on every chunk),
/// TGI's Messages API and OpenAI.
ChunkInfo decodeChunk(const QByteArray& payload, ApiKind api);

} // namespace ks
