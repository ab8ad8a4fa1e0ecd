#pragma once

#include "openairequest.h"

#include <QByteArray>

namespace kssim {

/// Builds the JSON payloads of one response exactly as vLLM's OpenAI server
/// sends them. Per-token chunks are assembled from a fixed prefix and suffix so
/// the hot path copies bytes instead of building JSON trees.
class ChunkFormatter {
public:
    ChunkFormatter(Endpoint endpoint, const QByteArray& id, qint64 created, const QString& model);

    /// Chat only: {"delta": {"role": "assistant", "content": ""}}.
    QByteArray roleChunk() const;
    /// `escapedText` is already JSON-escaped. `finishReason` null for all but the last token.
    QByteArray tokenChunk(const QByteArray& escapedText, bool reasoning, const char* finishReason) const;
    /// Chat only, vLLM's tool-call shape: the call's opening (index 0, id, type,
    /// function name), then fragments of its JSON arguments (already escaped for
    /// a JSON string); the last fragment carries `finishReason` ("tool_calls").
    QByteArray toolCallOpenChunk(const QByteArray& callId, const QByteArray& escapedName) const;
    QByteArray toolCallArgumentsChunk(const QByteArray& escapedFragment, const char* finishReason) const;
    QByteArray usageChunk(int promptTokens, int completionTokens) const;
    QByteArray fullResponse(const QByteArray& content, const QByteArray& reasoning, const char* finishReason,
        int promptTokens, int completionTokens) const;

private:
    Endpoint m_endpoint;
    QByteArray m_id;
    qint64 m_created;
    QByteArray m_modelName; ///< raw UTF-8
    QByteArray m_model; ///< JSON-escaped
    QByteArray m_head; ///< {"id":...,"model":...,"choices":[{"index":0,
};

} // namespace kssim
