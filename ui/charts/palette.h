#pragma once

#include <QColor>

#include <iterator>

namespace ks {

/// One colour per configuration, in order (Okabe-Ito: distinguishable with
/// the common colour-vision deficiencies). Every page uses the same order.
inline QColor configColor(int index)
{
    static const QColor colors[] = { QColor(0, 114, 178), QColor(213, 94, 0), QColor(0, 158, 115),
        QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233), QColor(120, 120, 120), QColor(240, 228, 66) };
    return colors[std::size_t(index) % std::size(colors)];
}

} // namespace ks
