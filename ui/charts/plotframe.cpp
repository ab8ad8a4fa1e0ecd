#include "charts/plotframe.h"

#include <qcustomplot.h>

namespace ks {

QCPTextElement* setUpPlotFrame(QCustomPlot* plot, const QWidget* owner)
{
    const QPalette pal = owner->palette();
    const QColor text = pal.color(QPalette::WindowText);
    plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* axis : { plot->xAxis, plot->yAxis }) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(pal.color(QPalette::Mid), 0, Qt::DotLine));
    }
    plot->plotLayout()->insertRow(0);
    auto* heading
        = new QCPTextElement(plot, QString(), QFont(owner->font().family(), owner->font().pointSize(), QFont::Bold));
    heading->setTextColor(text);
    plot->plotLayout()->addElement(0, 0, heading);
    plot->legend->setVisible(true);
    plot->legend->setBrush(pal.brush(QPalette::Base));
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setTextColor(text);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(2, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    return heading;
}

} // namespace ks
