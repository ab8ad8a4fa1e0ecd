#pragma once

#include "workload/imagepool.h"
#include "workload/loadspec.h"

#include <QByteArray>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// What one request of a session sends: the whole conversation so far (for a
/// multi-turn session, every earlier user turn followed by the server's actual
/// reply to it) ending in this turn's user message.
struct PromptTurn {
    struct Message {
        Message(const char* r, QByteArray c, std::vector<ImageRef> i = {})
            : role(r)
            , content(std::move(c))
            , images(std::move(i))
        {
        }
        const char* role;
        QByteArray content;
        std::vector<ImageRef> images; ///< sent after the text as image_url content parts (chat)
    };
    std::vector<Message> messages;
    int maxTokens = 1;
    int inTokens = 0; ///< prompt tokens as knobscope-sim counts them; 0: unknown (the server's usage fills it)
    int prefix = -1; ///< which shared prefix the prompt starts with; -1: none
    int images = 0; ///< images in all messages
    qint64 imageBytes = 0; ///< their files' bytes (before base64)
};

/// The request sequence of an arm, a pure function of the load spec and the
/// replies so far: two configurations given the same spec get the same prompts
/// and lengths in the same order. Immutable, shared by the worker threads.
class Workload {
public:
    explicit Workload(const LoadSpec& spec);

    /// Turns session `session` has (a file's conversation may have fewer user turns than asked).
    int turnsOf(qint64 session) const;
    /// Turn `turn` of `session`, given the server's replies to its earlier turns.
    PromptTurn turn(qint64 session, int turn, const std::vector<QByteArray>& replies) const;
    /// The prompt text for the completions API: the messages' contents, one per line.
    static QByteArray completionPrompt(const PromptTurn& turn);
    /// The text of shared prefix `index`: `tokens` words of one token each.
    static QByteArray prefixText(quint64 seed, int index, int tokens);

    /// What the run line records as `prompts` (docs/formats.md): the source, its
    /// parameters, max_tokens and a file's SHA-256.
    static nlohmann::json identity(const LoadSpec& spec);
    /// Whether two identities describe the same workload (a file's path may differ,
    /// its hash may not); `problem` says how they differ.
    static bool sameWorkload(const nlohmann::json& a, const nlohmann::json& b, QString* problem);

private:
    quint64 seed() const;
    PromptTurn textTurn(qint64 session, int turn, const std::vector<QByteArray>& replies) const;

    LoadSpec m_spec;
    std::vector<QByteArray> m_prefixes;
    std::shared_ptr<const ImagePool> m_images; ///< set when the prompts carry images
};

} // namespace ks
