#pragma once

#include <QByteArray>
#include <QString>

namespace ks {

/// Where two UTF-8 texts first differ. Positions count from 0; `word` is the
/// index of the whitespace-separated word that holds the first differing
/// character ("token-ish": no tokenizer is involved).
struct Divergence {
    qsizetype byte = -1;
    qsizetype character = -1;
    qsizetype word = -1;
    QString referenceExcerpt; ///< up to `context` characters either side, the divergence marked with ⟦⟧
    QString otherExcerpt;
};

/// Returns a Divergence with byte == -1 when the texts are equal. A shared
/// prefix that ends inside a multi-byte character counts from that character.
Divergence findDivergence(const QByteArray& reference, const QByteArray& other, int context = 32);

} // namespace ks
