#include "drift/divergence.h"

#include <QRegularExpression>

namespace ks {

namespace {

bool isContinuationByte(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

QString excerpt(const QByteArray& text, qsizetype byte, int context)
{
    const QString before = QString::fromUtf8(text.left(byte));
    const QString after = QString::fromUtf8(text.mid(byte));
    const bool cutBefore = before.size() > context;
    const bool cutAfter = after.size() > context;
    return (cutBefore ? QStringLiteral("…") : QString()) + before.right(context) + QStringLiteral("⟦")
        + after.left(context) + QStringLiteral("⟧") + (cutAfter ? QStringLiteral("…") : QString());
}

} // namespace

Divergence findDivergence(const QByteArray& reference, const QByteArray& other, int context)
{
    Divergence d;
    if (reference == other)
        return d;
    const qsizetype common = std::min(reference.size(), other.size());
    qsizetype at = 0;
    while (at < common && reference[at] == other[at])
        ++at;
    while (at > 0 && at < reference.size() && isContinuationByte(reference[at]))
        --at; // back to the start of the character that differs
    d.byte = at;
    const QString prefix = QString::fromUtf8(reference.left(at));
    d.character = prefix.toUcs4().size();
    d.word = prefix.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts).size();
    if (d.word > 0 && !prefix.back().isSpace())
        --d.word; // the divergence is inside the last word of the prefix
    d.referenceExcerpt = excerpt(reference, at, context);
    d.otherExcerpt = excerpt(other, at, context);
    return d;
}

} // namespace ks
