#include "workload/promptdataset.h"

#include "workload/promptfilereader.h"

#include <QFile>

namespace ks {

Conversation PromptDataset::conversation(std::size_t i) const
{
    const Entry& e = m_conversations[i];
    Conversation out;
    out.system.reserve(std::size_t(e.system));
    out.userTurns.reserve(std::size_t(e.user));
    for (qint64 t = 0; t < e.system; ++t)
        out.system.push_back(text(e.firstText + t));
    for (qint64 t = 0; t < e.user; ++t)
        out.userTurns.push_back(text(e.firstText + e.system + t));
    return out;
}

QByteArray PromptDataset::text(qint64 index) const
{
    qint64 at = index == 0 ? 0 : m_ends[std::size_t(index - 1)];
    const qint64 end = m_ends[std::size_t(index)];
    QByteArray out;
    out.reserve(qsizetype(end - at));
    while (at < end) {
        const QByteArray& block = m_blocks[std::size_t(at / kBlockBytes)];
        const qsizetype from = qsizetype(at % kBlockBytes);
        const qsizetype n = qMin(qsizetype(end - at), kBlockBytes - from);
        out.append(block.constData() + from, n);
        at += n;
    }
    return out;
}

void PromptDataset::addText(QByteArrayView text)
{
    while (!text.isEmpty()) {
        if (m_blocks.empty() || m_blocks.back().size() == kBlockBytes) {
            m_blocks.emplace_back();
            m_blocks.back().reserve(kBlockBytes); // never grown: untouched pages cost nothing
        }
        QByteArray& block = m_blocks.back();
        const qsizetype n = qMin(text.size(), kBlockBytes - block.size());
        block.append(text.first(n));
        text = text.sliced(n);
    }
    m_ends.push_back(m_blocks.empty() ? 0 : qint64(m_blocks.size() - 1) * kBlockBytes + m_blocks.back().size());
}

void PromptDataset::closeConversation(int system, int user)
{
    m_conversations.push_back({ qint64(m_ends.size()) - system - user, system, user });
}

void PromptDataset::squeeze()
{
    if (!m_blocks.empty())
        m_blocks.back().squeeze();
    m_ends.shrink_to_fit();
    m_conversations.shrink_to_fit();
}

QString formatName(PromptDataset::Format format)
{
    return format == PromptDataset::Format::ShareGpt ? QStringLiteral("sharegpt") : QStringLiteral("openai");
}

std::variant<PromptDataset, QString> parsePromptDataset(
    const QByteArray& bytes, PromptDataset::Format format, const QString& path)
{
    return parsePromptDataset(bytes, format, path, qMax<qsizetype>(bytes.size(), 1));
}

std::variant<PromptDataset, QString> parsePromptDataset(
    const QByteArray& bytes, PromptDataset::Format format, const QString& path, qsizetype pieceSize)
{
    PromptFileReader reader(format, path);
    const QByteArrayView all(bytes);
    for (qsizetype at = 0; at < all.size(); at += pieceSize)
        if (!reader.feed(all.sliced(at, qMin(pieceSize, all.size() - at))))
            break;
    return reader.finish();
}

std::variant<PromptDataset, QString> loadPromptDataset(const QString& path, PromptDataset::Format format)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read prompt file %1: %2").arg(path, file.errorString());
    // Pieces of 1 MiB: the file is never held whole, whatever its size.
    constexpr qsizetype kPiece = qsizetype(1) << 20;
    QByteArray buffer(kPiece, Qt::Uninitialized);
    PromptFileReader reader(format, path);
    for (;;) {
        const qint64 n = file.read(buffer.data(), kPiece);
        if (n < 0)
            return QStringLiteral("cannot read prompt file %1: %2").arg(path, file.errorString());
        if (n == 0 || !reader.feed(QByteArrayView(buffer.constData(), qsizetype(n))))
            break;
    }
    return reader.finish();
}

} // namespace ks
