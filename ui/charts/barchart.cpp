#include "charts/barchart.h"

#include "charts/chartstyle.h"
#include "charts/titlewrap.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>

#include <QCoreApplication>
#include <QFontMetrics>
#include <QGraphicsObject>
#include <QGraphicsScene>
#include <QPainter>
#include <QPointer>
#include <QVBoxLayout>

namespace ks {

BarChart::BarChart(QWidget* parent)
    : QWidget(parent)
    , m_view(new QChartView(this))
    , m_chart(new QChart)
{
    QChart* placeholder = m_view->chart(); // the view's own empty chart: setChart() hands it back
    m_view->setChart(m_chart);
    delete placeholder;
    m_view->setRenderHint(QPainter::Antialiasing);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setAnimationOptions(QChart::NoAnimation); // switching arms must be instant
    if (palette().color(QPalette::Window).lightness() < 128)
        m_chart->setTheme(QChart::ChartThemeDark); // follow a dark system palette
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    setMinimumSize(300, 220);
    m_chart->setTitleFont(headingFont(font()));
    applyStyle(chartColors(palette()));
}

BarChart::~BarChart() = default;

void BarChart::setData(
    const QString& title, const QStringList& categories, const QVector<Set>& sets, const QString& yLabel)
{
    m_sets = sets;
    m_chart->removeAllSeries();
    for (QAbstractAxis* axis : m_chart->axes()) {
        // removeAxis() gives the axis back to the caller; Qt Charts may still hold its items until the
        // event loop runs, so it goes then, or with the chart if no event loop runs again.
        m_chart->removeAxis(axis);
        axis->setParent(m_chart);
        axis->deleteLater();
    }
    auto* series = new QBarSeries;
    double top = 0;
    for (const Set& s : sets) {
        auto* bars = new QBarSet(s.name);
        bars->setColor(s.color);
        for (double v : s.values) {
            *bars << v;
            top = std::max(top, v);
        }
        series->append(bars);
    }
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value"));
    series->setLabelsPrecision(4);
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    series->setLabelsAngle(-90); // narrow bars side by side: upright labels would overlap
    m_chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setTitleText(yLabel);
    y->setRange(0, top > 0 ? top * 1.25 : 1); // room for the value labels above the bars
    y->setLabelFormat(QStringLiteral("%g"));
    y->applyNiceNumbers();
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    applyStyle(chartColors(palette()));
    m_fullTitle = title;
    showWrappedTitle();
}

QString BarChart::title() const
{
    return m_fullTitle;
}

void BarChart::setExportTitle(const QString& title)
{
    m_fullTitle = title;
    showWrappedTitle();
}

void BarChart::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    showWrappedTitle();
}

void BarChart::showWrappedTitle()
{
    // Qt Charts elides a title that does not fit; breaking it at its separators keeps every configuration name.
    // The widget's own width: a hidden page's chart view learns its size only later.
    // Less the view's frame and the chart's own margins, inside which Qt Charts lays the title out.
    const QMargins margins = m_chart->margins();
    const int width = std::max(120, this->width() - 48 - margins.left() - margins.right());
    QStringList lines = wrapTitle(m_fullTitle, QFontMetrics(m_chart->titleFont()), width);
    for (QString& line : lines)
        line = line.toHtmlEscaped();
    m_chart->setTitle(lines.join(QStringLiteral("<br>")));
    m_view->setToolTip(m_fullTitle);
}

void BarChart::renderTo(QPaintDevice* device, const QSize& size)
{
    const QSizeF old = m_chart->size();
    const QChart::ChartTheme theme = m_chart->theme();
    if (theme != QChart::ChartThemeLight) {
        m_chart->setTheme(QChart::ChartThemeLight); // exports are for documents: dark on white
        applyStyle(documentColors());
    }
    m_chart->setTitle(m_fullTitle); // exports: the one-line title, as before
    // setData() replaced the series and axes, and Qt Charts deletes their items later, from the event loop.
    // Several exports in a row without one (export --report, --html) would draw them as stray "..." labels
    // (and carry them in every SVG), so their deletion is done now; only this chart's items are touched.
    QList<QPointer<QGraphicsObject>> items;
    for (QGraphicsItem* item : m_chart->scene()->items())
        if (QGraphicsObject* object = item->toGraphicsObject())
            items << object;
    for (const QPointer<QGraphicsObject>& object : items)
        if (object)
            QCoreApplication::sendPostedEvents(object, QEvent::DeferredDelete);
    m_chart->resize(size);
    QPainter painter(device);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    m_chart->scene()->render(&painter, QRectF(QPointF(0, 0), size), QRectF(m_chart->pos(), size));
    painter.end();
    m_chart->resize(old);
    if (theme != QChart::ChartThemeLight) {
        m_chart->setTheme(theme);
        applyStyle(chartColors(palette()));
    }
    showWrappedTitle();
}

void BarChart::applyStyle(const ChartColors& colors)
{
    // A theme resets fonts and colours: the heading's font, the sets' own colours and the frame come back here.
    m_chart->setTitleFont(headingFont(font()));
    m_chart->setTitleBrush(colors.text);
    m_chart->setBackgroundBrush(colors.background);
    m_chart->legend()->setLabelColor(colors.text);
    for (QAbstractAxis* axis : m_chart->axes()) {
        axis->setLabelsFont(font()); // tick labels and axis titles as the QCustomPlot charts draw theirs
        axis->setTitleFont(font());
        axis->setLabelsColor(colors.text);
        axis->setTitleBrush(colors.text);
        axis->setLinePenColor(colors.text);
        axis->setGridLinePen(gridPen(colors));
    }
    for (QAbstractSeries* series : m_chart->series()) {
        const QList<QBarSet*> sets = static_cast<QBarSeries*>(series)->barSets();
        for (int i = 0; i < sets.size() && i < m_sets.size(); ++i) {
            sets[i]->setColor(m_sets[i].color);
            sets[i]->setBorderColor(outlineOf(m_sets[i].color));
            sets[i]->setLabelColor(colors.text);
        }
    }
}

} // namespace ks
