#pragma once

#include <QByteArray>
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
/// (ShareGPT as published). Its SHA-256 travels into every
/// run that uses it, so two runs of different files are never compared by accident.
struct PromptDataset {
    enum class Format { OpenAi, ShareGpt };
    QString path;
    Format format = Format::OpenAi;
    QString sha256; ///< hex, of the file's bytes
    std::vector<Conversation> conversations;
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
