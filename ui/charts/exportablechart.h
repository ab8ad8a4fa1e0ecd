#pragma once

#include <QSize>
#include <QString>

class QPaintDevice;

namespace ks {

/// A chart that can draw itself at any size onto any paint device, so export
/// writes vectors to SVG and PDF and pixels only to PNG.
class ExportableChart {
public:
    virtual ~ExportableChart() = default;
    virtual void renderTo(QPaintDevice* device, const QSize& size) = 0;
    /// The chart's title line ("experiment · arm · metric").
    virtual void setExportTitle(const QString& title) = 0;
};

/// Writes `chart` to `path` as PNG, SVG or PDF (chosen by the suffix) at `size`
/// (pixels; PDF: points). Returns false with `error` set when it cannot.
bool exportChart(ExportableChart& chart, const QString& path, const QSize& size, QString* error);

} // namespace ks
