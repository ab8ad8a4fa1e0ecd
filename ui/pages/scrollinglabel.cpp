#include "pages/scrollinglabel.h"

#include <QLabel>
#include <QScrollArea>

namespace ks {

QWidget* scrollingLabel(QLabel* label, QWidget* parent, int lines)
{
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* area = new QScrollArea(parent);
    area->setWidget(label);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    area->setMaximumHeight(label->fontMetrics().lineSpacing() * lines + 4);
    area->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    return area;
}

} // namespace ks
