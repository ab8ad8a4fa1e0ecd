#include "charts/exportablechart.h"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace ks {

bool exportChart(ExportableChart& chart, const QString& path, const QSize& size, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (size.width() < 100 || size.height() < 100 || size.width() > 10000 || size.height() > 10000) {
        *error
            = QStringLiteral("size %1x%2 is out of range (100 to 10000 a side)").arg(size.width()).arg(size.height());
        return false;
    }
    if (suffix == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32);
        image.fill(Qt::white);
        chart.renderTo(&image, size);
        if (!image.save(path, "PNG")) {
            *error = QStringLiteral("cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setResolution(90); // width/height are written in mm; at 90 dpi they read back as `size` pixels
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(QStringLiteral("knobscope chart"));
        chart.renderTo(&svg, size);
        if (!QFileInfo(path).exists()) {
            *error = QStringLiteral("cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(path);
        pdf.setResolution(72); // one PDF point per pixel of the requested size
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(QStringLiteral("knobscope chart"));
        chart.renderTo(&pdf, size);
        if (!QFileInfo(path).exists()) {
            *error = QStringLiteral("cannot write %1").arg(path);
            return false;
        }
        return true;
    }
    *error = QStringLiteral("unknown format '%1': use .png, .svg or .pdf").arg(suffix);
    return false;
}

} // namespace ks
