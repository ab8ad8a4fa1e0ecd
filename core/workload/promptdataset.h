#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <variant>
#include <vector>

namespace ks {

/// One conversation of a prompt file: the system messages before its first user
/// turn, then its user turns in order. The file's own assistant replies are not
/// kept: a multi-turn session sends the server's actual replies instead.
struct Conversation {
    std::vector<QByteArray> system;
    std::vector<QByteArray> userTurns;
};

/// A prompt file (docs/formats.md, "Prompt files"): JSON Lines of OpenAI
/// `messages` lists or ShareGPT `conversations`, or one JSON array of them
/// (ShareGPT as published). Its SHA-256 travels into every run that uses it, so
/// two runs of different files are never compared by accident.
///
/// The kept texts lie back to back in blocks of 16 MiB with an offset each, not
/// one QByteArray apiece: a published ShareGPT file has hundreds of thousands of
/// short user turns, and a QByteArray's header and allocation would add about a
/// fifth to their own bytes. Fixed blocks, not one growing buffer, because
/// growing a QByteArray copies it: twice the texts at the moment it grows
/// (docs/PERFORMANCE.md, "Prompt files: ShareGPT JSON array").
class PromptDataset {
public:
    enum class Format { OpenAi, ShareGpt };
    QString path;
    Format format = Format::OpenAi;
    QString sha256; ///< hex, of the file's bytes
    /// ShareGPT conversations left out: an empty `conversations` list or no
    /// human turn (the published file has both); never silently: the run's
    /// workload records the count.
    int skippedConversations = 0;

    std::size_t conversationCount() const { return m_conversations.size(); }
    /// A copy of conversation `i`'s texts.
    Conversation conversation(std::size_t i) const;
    int userTurnCount(std::size_t i) const { return m_conversations[i].user; }
    qsizetype textCount() const { return qsizetype(m_ends.size()); }
    qint64 textBytes() const { return m_ends.empty() ? 0 : m_ends.back(); }

    /// Building: a conversation's system messages, then its user turns, then
    /// closeConversation() with how many of each were added.
    void addText(QByteArrayView text);
    void closeConversation(int system, int user);
    /// Gives back spare capacity once reading is done.
    void squeeze();

    static constexpr qsizetype kBlockBytes = qsizetype(16) << 20;

private:
    struct Entry {
        qint64 firstText; ///< index into m_ends
        qint32 system;
        qint32 user;
    };
    QByteArray text(qint64 index) const;

    std::vector<QByteArray> m_blocks; ///< every kept text, back to back, cut into blocks of kBlockBytes
    std::vector<qint64> m_ends; ///< where each text ends, counting over the blocks as one
    std::vector<Entry> m_conversations;
};

QString formatName(PromptDataset::Format format);

/// Parses the bytes of a prompt file; a bad line is refused with its number, a
/// bad array element with its number and byte offset.
std::variant<PromptDataset, QString> parsePromptDataset(
    const QByteArray& bytes, PromptDataset::Format format, const QString& path);
/// The same, fed to the reader in pieces of `pieceSize` bytes as loadPromptDataset
/// feeds a file (tests put piece boundaries inside strings and escapes).
std::variant<PromptDataset, QString> parsePromptDataset(
    const QByteArray& bytes, PromptDataset::Format format, const QString& path, qsizetype pieceSize);
/// Reads the file in pieces: memory holds the kept turns, never the whole file.
std::variant<PromptDataset, QString> loadPromptDataset(const QString& path, PromptDataset::Format format);

} // namespace ks
