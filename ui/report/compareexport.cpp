#include "compareexport.h"

#include "pages/comparepage.h"

#include <QComboBox>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QToolButton>

namespace ks {

namespace {

QSize sizeOf(const QString& text)
{
    const QStringList wh = text.split(QLatin1Char('x'));
    return wh.size() == 2 ? QSize(wh[0].toInt(), wh[1].toInt()) : QSize(1200, 750);
}

} // namespace

QList<QWidget*> createExportControls(ComparePage* page, const QComboBox* arm, const QComboBox* metric)
{
    auto* size = new QComboBox(page);
    size->addItems({ QStringLiteral("800x500"), QStringLiteral("1200x750"), QStringLiteral("1600x1000"),
        QStringLiteral("2400x1500") });
    size->setCurrentIndex(1);
    size->setToolTip(ComparePage::tr("Size of exported charts (pixels; points for PDF)"));

    auto* exportChartButton = new QToolButton(page);
    exportChartButton->setText(ComparePage::tr("Export chart"));
    exportChartButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportChartButton);
    auto exportOne = [page, arm, metric, size](bool cdf) {
        const QString path
            = QFileDialog::getSaveFileName(page, ComparePage::tr("Export chart"), QStringLiteral("chart.png"),
                ComparePage::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        if (path.isEmpty())
            return;
        QString error;
        const QString key = metric->currentData().toString().section(QLatin1Char('_'), 0, 0);
        if (!page->exportChart((cdf ? QStringLiteral("cdf-") : QString()) + key, arm->currentText(), path,
                sizeOf(size->currentText()), &error))
            QMessageBox::warning(page, ComparePage::tr("Export failed"), error);
    };
    menu->addAction(ComparePage::tr("Bars…"), page, [exportOne] { exportOne(false); });
    menu->addAction(ComparePage::tr("CDF…"), page, [exportOne] { exportOne(true); });
    menu->addAction(ComparePage::tr("Knee (sweep arms)…"), page, [page, arm, size] {
        const QString path
            = QFileDialog::getSaveFileName(page, ComparePage::tr("Export chart"), QStringLiteral("knee.png"),
                ComparePage::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        QString error;
        if (!path.isEmpty()
            && !page->exportChart(
                QStringLiteral("knee"), arm->currentText(), path, sizeOf(size->currentText()), &error))
            QMessageBox::warning(page, ComparePage::tr("Export failed"), error);
    });
    exportChartButton->setMenu(menu);
    auto* exportTableButton = new QToolButton(page);
    exportTableButton->setText(ComparePage::tr("Export table…"));
    exportTableButton->setToolTip(ComparePage::tr("Every arm's table, as CSV or Markdown (by file name)"));
    QObject::connect(exportTableButton, &QToolButton::clicked, page, [page] {
        const QString path = QFileDialog::getSaveFileName(page, ComparePage::tr("Export table"),
            QStringLiteral("compare.md"), ComparePage::tr("Markdown (*.md);;CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !page->exportTable(path, &error))
            QMessageBox::warning(page, ComparePage::tr("Export failed"), error);
    });
    auto* exportReportButton = new QToolButton(page);
    exportReportButton->setText(ComparePage::tr("Export report…"));
    exportReportButton->setToolTip(
        ComparePage::tr("Every chart and table of the experiment into a folder, with an index.md"));
    QObject::connect(exportReportButton, &QToolButton::clicked, page, [page] {
        const QString dir = QFileDialog::getExistingDirectory(page, ComparePage::tr("Export report into"));
        QString error;
        if (!dir.isEmpty() && !page->exportReport(dir, &error))
            QMessageBox::warning(page, ComparePage::tr("Export failed"), error);
    });
    auto* exportHtmlButton = new QToolButton(page);
    exportHtmlButton->setText(ComparePage::tr("Export HTML report…"));
    exportHtmlButton->setToolTip(ComparePage::tr(
        "The whole report as one HTML file: charts, tables with intervals, drift, environment and spec; it loads "
        "nothing from elsewhere"));
    QObject::connect(exportHtmlButton, &QToolButton::clicked, page, [page] {
        const QString path = QFileDialog::getSaveFileName(page, ComparePage::tr("Export HTML report"),
            QStringLiteral("report.html"), ComparePage::tr("HTML page (*.html *.htm)"));
        QString error;
        if (!path.isEmpty() && !page->exportHtmlReport(path, &error))
            QMessageBox::warning(page, ComparePage::tr("Export failed"), error);
    });
    return { size, exportChartButton, exportTableButton, exportReportButton, exportHtmlButton };
}

} // namespace ks
