#include "charts/titlewrap.h"

#include <QFontMetrics>
#include <QRegularExpression>

namespace ks {

QStringList wrapTitle(const QString& title, const QFontMetrics& metrics, int width)
{
    // Pieces keep their separator at the end, so joining them gives the title back.
    static const QRegularExpression separator(QStringLiteral("(?<= · )|(?<= vs )"));
    const QStringList pieces = title.split(separator, Qt::SkipEmptyParts);
    QStringList lines;
    QString line;
    for (const QString& piece : pieces) {
        if (!line.isEmpty() && metrics.horizontalAdvance((line + piece).trimmed()) > width) {
            lines << line.trimmed();
            line.clear();
        }
        line += piece;
    }
    if (!line.trimmed().isEmpty())
        lines << line.trimmed();
    for (QString& l : lines) {
        if (metrics.horizontalAdvance(l) > width)
            l = metrics.elidedText(l, Qt::ElideMiddle, width);
    }
    return lines;
}

} // namespace ks
