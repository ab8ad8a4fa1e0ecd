#include "charts/chartstyle.h"

#include <qcustomplot.h>

#include <iterator>

namespace ks {

QColor configColor(int index)
{
    static const QColor colors[] = { QColor(0, 114, 178), QColor(213, 94, 0), QColor(0, 158, 115),
        QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233), QColor(120, 120, 120), QColor(240, 228, 66) };
    return colors[std::size_t(index) % std::size(colors)];
}

ChartColors chartColors(const QPalette& palette)
{
    return { palette.color(QPalette::WindowText), palette.color(QPalette::Mid), palette.color(QPalette::Base) };
}

ChartColors documentColors()
{
    return { QColor(0, 0, 0), QColor(160, 160, 160), QColor(255, 255, 255) };
}

QFont headingFont(const QFont& base)
{
    return QFont(base.family(), base.pointSize(), QFont::Bold);
}

QPen gridPen(const ChartColors& colors)
{
    return QPen(colors.grid, 0, Qt::DotLine);
}

QPen targetPen(const ChartColors& colors)
{
    return QPen(colors.text, 1.4, Qt::DashDotLine);
}

QColor outlineOf(const QColor& color)
{
    return color.darker(130);
}

void styleAxis(QCPAxis* axis, const ChartColors& colors)
{
    axis->setBasePen(QPen(colors.text));
    axis->setTickPen(QPen(colors.text));
    axis->setSubTickPen(QPen(colors.text));
    axis->setTickLabelColor(colors.text);
    axis->setLabelColor(colors.text);
    axis->grid()->setPen(gridPen(colors));
}

QCPTextElement* setUpPlotFrame(QCustomPlot* plot, const QWidget* owner)
{
    const ChartColors colors = chartColors(owner->palette()); // follow the system's light or dark palette
    plot->setBackground(QBrush(colors.background));
    for (QCPAxis* axis : plot->axisRect()->axes())
        styleAxis(axis, colors);
    plot->plotLayout()->insertRow(0);
    auto* heading = new QCPTextElement(plot, QString(), headingFont(owner->font()));
    heading->setTextColor(colors.text);
    plot->plotLayout()->addElement(0, 0, heading);
    // The legend goes below the axes: inside, it would hide lines, labels or the knee itself.
    plot->legend->setVisible(true);
    plot->legend->setBrush(QBrush(colors.background));
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setTextColor(colors.text);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    showLegend(plot, true);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    return heading;
}

void showLegend(QCustomPlot* plot, bool shown)
{
    QCPLayoutGrid* layout = plot->plotLayout();
    const bool placed = plot->legend->layout() == layout;
    if (shown && !placed) {
        layout->addElement(2, 0, plot->legend);
        layout->setRowStretchFactor(2, 0.001);
    } else if (!shown && placed) {
        layout->take(plot->legend); // a hidden element would still take its room
        layout->simplify();
    }
    plot->legend->setVisible(shown);
}

QCPTextElement* addFootnote(QCustomPlot* plot, const QWidget* owner)
{
    auto* line = new QCPTextElement(plot, QString(), owner->font());
    line->setTextColor(chartColors(owner->palette()).text);
    plot->plotLayout()->addElement(3, 0, line);
    plot->plotLayout()->setRowStretchFactor(3, 0.001);
    return line;
}

void addTargetLine(QCustomPlot* plot, QCPAxis* valueAxis, double value, const QString& text, bool labelRight)
{
    const ChartColors colors = chartColors(plot->palette());
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setAxes(plot->xAxis, valueAxis);
    line->point2->setAxes(plot->xAxis, valueAxis);
    for (QCPItemPosition* point : { line->point1, line->point2 }) {
        point->setTypeX(QCPItemPosition::ptAxisRectRatio); // from edge to edge, whatever the x scale
        point->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    line->point1->setCoords(0, value);
    line->point2->setCoords(1, value);
    line->setPen(targetPen(colors));
    auto* label = new QCPItemText(plot);
    label->position->setAxes(plot->xAxis, valueAxis);
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(labelRight ? 0.99 : 0.01, value);
    label->setPositionAlignment((labelRight ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    label->setColor(colors.text);
    label->setText(text);
}

void renderPlot(QCustomPlot* plot, QPaintDevice* device, const QSize& size)
{
    QCPPainter painter(device);
    plot->toPainter(&painter, size.width(), size.height()); // fills the plot's background first
}

} // namespace ks
