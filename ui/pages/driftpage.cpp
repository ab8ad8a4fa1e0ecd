#include "driftpage.h"

#include "charts/barchart.h"
#include "charts/driftcountschart.h"
#include "feeds/runfileloader.h"
#include "models/driftmatrixmodel.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTextEdit>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks {

namespace {

/// Colours a matrix cell by its state; the symbol stays for colour-blind readers.
class StateDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        static const QColor colors[]
            = { QColor(0, 158, 115, 70), QColor(213, 94, 0, 170), QColor(200, 30, 30, 170), QColor(128, 128, 128, 40) };
        const int state = index.data(DriftMatrixModel::kStateRole).toInt();
        painter->fillRect(option.rect, colors[std::clamp(state, 0, 3)]);
        QStyledItemDelegate::paint(painter, option, index);
    }
};

/// The text with everything from `character` on highlighted.
void showHighlighted(QTextEdit* edit, const QByteArray& utf8, qsizetype character)
{
    const QString text = QString::fromUtf8(utf8);
    const QList<uint> ucs4 = text.toUcs4();
    const qsizetype at = character < 0 ? text.size()
                                       : QString::fromUcs4(reinterpret_cast<const char32_t*>(ucs4.constData()),
                                           std::min(character, qsizetype(ucs4.size())))
                                             .size();
    edit->setHtml(QStringLiteral(
        "<pre style='white-space: pre-wrap'>%1<span style='background:#ffd27a; color:#000'>%2</span></pre>")
                      .arg(text.left(at).toHtmlEscaped(), text.mid(at).toHtmlEscaped()));
}

} // namespace

DriftPage::DriftPage(QWidget* parent)
    : QWidget(parent)
    , m_model(new DriftMatrixModel(this))
    , m_filter(new ChangedProbesFilter(this))
    , m_view(new QTableView(this))
    , m_changedOnly(new QCheckBox(tr("Changed probes &only"), this))
    , m_summary(new QLabel(this))
    , m_where(new QLabel(this))
    , m_reference(new QTextEdit(this))
    , m_changed(new QTextEdit(this))
    , m_bars(new BarChart(this))
{
    m_filter->setSourceModel(m_model);
    m_view->setModel(m_filter);
    m_view->setItemDelegate(new StateDelegate(m_view));
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex& current) { showDiff(current); });
    connect(m_changedOnly, &QCheckBox::toggled, m_filter, &ChangedProbesFilter::setChangedOnly);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_where->setWordWrap(true);
    for (QTextEdit* edit : { m_reference, m_changed })
        edit->setReadOnly(true);

    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export chart…"));
    exportButton->setToolTip(tr("The drift counts chart as PNG, SVG or PDF"));
    connect(exportButton, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("drift.png"),
            tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !exportChart(*m_bars, path, QSize(1200, 750), &error))
            QMessageBox::warning(this, tr("Export failed"), error);
    });
    auto* top = new QHBoxLayout;
    top->addWidget(m_changedOnly);
    top->addStretch(1);
    top->addWidget(exportButton);

    auto* texts = new QWidget(this);
    auto* textLayout = new QGridLayout(texts);
    textLayout->setContentsMargins(0, 0, 0, 0);
    textLayout->addWidget(m_where, 0, 0, 1, 2);
    textLayout->addWidget(new QLabel(tr("Reference (first pass of the model's first configuration)"), texts), 1, 0);
    textLayout->addWidget(new QLabel(tr("This output (highlighted from the first difference on)"), texts), 1, 1);
    textLayout->addWidget(m_reference, 2, 0);
    textLayout->addWidget(m_changed, 2, 1);

    auto* upper = new QSplitter(Qt::Horizontal, this);
    upper->addWidget(m_view);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_summary);
    rightLayout->addWidget(m_bars, 1);
    upper->addWidget(right);
    upper->setStretchFactor(0, 3);
    upper->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(upper);
    split->addWidget(texts);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    m_summary->setText(tr("No probe outputs yet: add drift probes to an experiment (the bundled <i>drift</i> "
                          "experiment has them) or open a run file that has some."));
}

void DriftPage::setResult(std::shared_ptr<const LoadedRunFile> result)
{
    if (!result || !result->hasProbes) {
        m_model->setReport({});
        m_bars->setData(QString(), {}, {}, QString()); // no file, or one without probe passes
        m_summary->setText(tr("This run file has no probe passes."));
        return;
    }
    const DriftReport& report = result->drift;
    m_model->setReport(report);
    QString html = tr("<p>Probe set <b>%1</b> version %2 · %3 probes</p><table cellspacing='6'><tr><th align='left'>"
                      "configuration</th><th>within run</th><th>across restart</th><th>across config</th><th>changed"
                      "</th></tr>")
                       .arg(QString::fromStdString(report.set.value("set", std::string("?"))),
                           QString::fromStdString(report.set.value("set_version", std::string("?"))))
                       .arg(report.probes.size());
    for (const ConfigDrift& c : report.configs) {
        html += QStringLiteral("<tr><td>%1 (%2)</td><td align='center'>%3</td><td align='center'>%4</td><td "
                               "align='center'>%5</td><td align='center'><b>%6 of %7</b></td></tr>")
                    .arg(c.config.toHtmlEscaped(), c.model.toHtmlEscaped())
                    .arg(c.withinRun.size())
                    .arg(c.restarts > 0 ? QString::number(c.acrossRestart.size()) : QStringLiteral("–"))
                    .arg(c.isReference ? tr("ref") : QString::number(c.acrossConfig.size()))
                    .arg(c.mismatches.size())
                    .arg(c.probes);
    }
    for (const QString& problem : report.problems)
        html += QStringLiteral("<p style='color:#c0392b'>%1</p>").arg(problem.toHtmlEscaped());
    m_summary->setText(html + QStringLiteral("</table>"));
    drawDriftCounts(*m_bars, *result);
    m_reference->clear();
    m_changed->clear();
    m_where->setText(tr("Select a ≠ cell to see where the output parts from the reference."));
    if (!report.diffs.empty()) { // open on the first change, so the page shows what drift looks like
        const DriftDiff& first = report.diffs.front();
        showCell(int(report.probes.indexOf(first.probe)), first.column);
    }
}

void DriftPage::showCell(int row, int column)
{
    const QModelIndex proxy = m_filter->mapFromSource(m_model->index(row, column));
    m_view->setCurrentIndex(proxy);
    showDiff(proxy);
}

QString DriftPage::referenceText() const
{
    return m_reference->toPlainText();
}

QString DriftPage::changedText() const
{
    return m_changed->toPlainText();
}

void DriftPage::showDiff(const QModelIndex& proxyIndex)
{
    const DriftDiff* diff = m_model->diffAt(m_filter->mapToSource(proxyIndex));
    if (!diff) {
        m_where->setText(tr("This output matches the reference (or failed): nothing to show."));
        m_reference->clear();
        m_changed->clear();
        return;
    }
    if (diff->divergence.byte < 0) {
        m_where->setText(tr("%1: the hashes differ but this file kept no text for it.").arg(diff->probe));
        return;
    }
    m_where->setText(tr("<b>%1</b>, %2: the %3 parts from the reference at character %4 (word %5).")
                         .arg(diff->probe, m_model->report().columns[std::size_t(diff->column)].label(), diff->channel)
                         .arg(diff->divergence.character)
                         .arg(diff->divergence.word));
    showHighlighted(m_reference, diff->reference, diff->divergence.character);
    showHighlighted(m_changed, diff->other, diff->divergence.character);
}

} // namespace ks
