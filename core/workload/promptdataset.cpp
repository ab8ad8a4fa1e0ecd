#include "workload/promptdataset.h"

#include "workload/promptfilereader.h"

#include <QFile>

namespace ks {

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
