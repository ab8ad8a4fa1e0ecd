#include "pages/runspage.h"

#include "charts/trendplot.h"
#include "library/runcatalogue.h"
#include "library/runtrend.h"
#include "models/runstablemodel.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSizePolicy>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <set>

namespace ks {

RunsPage::RunsPage(QString libraryPath, QWidget* parent)
    : QWidget(parent)
    , m_libraryPath(std::move(libraryPath))
    , m_model(new RunsTableModel(this))
    , m_filter(new QLineEdit(this))
    , m_count(new QLabel(this))
    , m_table(new QTableView(this))
    , m_metric(new QComboBox(this))
    , m_trend(new TrendPlot(this))
    // Mnemonics clear of the tabs, the menus and the editor, which stay visible beside this page.
    , m_open(new QPushButton(tr("Op&en"), this))
    , m_compare(new QPushButton(tr("Compare &selected"), this))
    , m_tags(new QPushButton(tr("Ed&it tags…"), this))
    , m_delete(new QPushButton(tr("Delete…"), this))
{
    m_filter->setPlaceholderText(
        tr("Filter: text, or model=8b knob.max_num_seqs=32 server=0.9 host=ws spec=… config=… arm=… since=2026-12-01"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Terms as in `knobscope runs --where`, separated by spaces; every term must match"));
    connect(m_filter, &QLineEdit::textChanged, this, &RunsPage::applyFilter);

    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // the catalogue's order: newest first
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    m_table->setSortingEnabled(true);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) { // Enter or double-click
        if (const CatalogueRow* r = m_model->rowAt(index.row()); r && !r->missing)
            emit openRequested(r->file.path);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateButtons();
        updateTrend();
    });

    for (const QString& metric : trendMetrics())
        m_metric->addItem(metric);
    m_metric->setCurrentText(QStringLiteral("ttft_ms.p99"));
    m_metric->setToolTip(tr("The figure the trend follows"));
    connect(m_metric, &QComboBox::currentTextChanged, this, &RunsPage::updateTrend);

    auto* refresh = new QPushButton(tr("Reload"), this);
    refresh->setToolTip(tr("Read the run library again (F5)"));
    connect(refresh, &QPushButton::clicked, this, &RunsPage::reload);
    auto* reloadKey = new QShortcut(QKeySequence::Refresh, this, this, &RunsPage::reload);
    reloadKey->setContext(Qt::WidgetWithChildrenShortcut);
    auto* deleteKey = new QShortcut(QKeySequence::Delete, m_table, this, &RunsPage::deleteSelected);
    deleteKey->setContext(Qt::WidgetShortcut);
    auto* rescan = new QPushButton(tr("Rescan folder…"), this);
    rescan->setToolTip(tr("Catalogue the run files under a folder; files that are gone are marked missing, moved "
                          "ones found again by their hash"));
    connect(rescan, &QPushButton::clicked, this, &RunsPage::rescanFolder);
    m_open->setToolTip(tr("Replay the selected row's run file on the Live page (or Enter, or double-click the row)"));
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (const QList<int> rows = selectedRows(); !rows.isEmpty())
            if (const CatalogueRow* r = m_model->rowAt(rows.front()); r && !r->missing)
                emit openRequested(r->file.path);
    });
    m_compare->setToolTip(tr("Compare the selected configuration-arms, from any files, on the Compare page "
                             "(the first selected is the baseline)"));
    connect(m_compare, &QPushButton::clicked, this, [this] {
        const std::vector<CataloguePick> picks = selectedPicks();
        if (picks.size() >= 2)
            emit compareRequested(picks);
    });
    m_tags->setToolTip(tr("Set the tags of the selected rows' files (free text; the filter finds them)"));
    connect(m_tags, &QPushButton::clicked, this, &RunsPage::editTags);
    m_delete->setToolTip(tr("Forget the selected files, or delete them from disk after asking (Del)"));
    connect(m_delete, &QPushButton::clicked, this, &RunsPage::deleteSelected);
    auto* exportButton = new QPushButton(tr("E&xport trend…"), this);
    exportButton->setToolTip(tr("The trend chart as PNG, SVG or PDF"));
    connect(exportButton, &QPushButton::clicked, this, &RunsPage::exportTrend);

    // Short rows: the page must not widen the window past what the editor beside it leaves at 1280x800.
    m_count->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_count->setMinimumWidth(120);
    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 3);
    top->addWidget(m_count, 1);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : { m_open, m_compare, m_tags, m_delete })
        buttons->addWidget(b);
    buttons->addStretch(1);
    auto* trendRow = new QHBoxLayout;
    trendRow->addWidget(new QLabel(tr("Trend of"), this));
    trendRow->addWidget(m_metric);
    trendRow->addWidget(exportButton);
    trendRow->addStretch(1);
    trendRow->addWidget(refresh);
    trendRow->addWidget(rescan);

    auto* upper = new QWidget(this);
    auto* upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addLayout(top);
    upperLayout->addWidget(m_table, 1);
    upperLayout->addLayout(buttons);
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addLayout(trendRow);
    lowerLayout->addWidget(m_trend, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(upper);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);
    updateButtons();
}

void RunsPage::reload()
{
    QString error;
    auto catalogue = RunCatalogue::open(m_libraryPath, &error);
    if (!catalogue) {
        m_model->setRows({});
        m_count->setText(tr("run library unavailable"));
        emit status(tr("Run library: %1").arg(error));
        return;
    }
    if (!catalogue->message().isEmpty())
        emit status(catalogue->message());
    std::vector<CatalogueRow> rows = catalogue->rows({}, &error);
    if (!error.isEmpty())
        emit status(tr("Run library: %1").arg(error));
    const bool first = m_model->totalCount() == 0;
    m_model->setRows(std::move(rows));
    applyFilter();
    if (first && m_model->rowCount() > 0) {
        // Sized once to the rows in view (Qt measures at most 1000), then left to the user.
        m_table->resizeColumnsToContents();
        for (const int column : { int(RunsTableModel::KnobsColumn), int(RunsTableModel::ServerColumn),
                 int(RunsTableModel::PathColumn), int(RunsTableModel::SpecColumn), int(RunsTableModel::ConfigColumn) })
            m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), 200));
    }
}

void RunsPage::applyFilter()
{
    CatalogueFilter filter;
    QString error;
    const QStringList terms = m_filter->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (!parseCatalogueFilter(terms, &filter, &error)) {
        m_count->setText(error.section(QStringLiteral(": "), 1));
        m_count->setToolTip(error);
        return; // keep the last good filter while the user is typing
    }
    m_model->setFilter(filter);
    m_count->setToolTip({});
    m_count->setText(tr("%1 of %2 configuration-arms").arg(m_model->rowCount()).arg(m_model->totalCount()));
    updateButtons();
    updateTrend();
}

QList<int> RunsPage::selectedRows() const
{
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

void RunsPage::selectRows(const QList<int>& rows)
{
    QItemSelection selection;
    for (const int row : rows)
        selection.select(m_model->index(row, 0), m_model->index(row, RunsTableModel::ColumnCount - 1));
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (!rows.isEmpty())
        m_table->scrollTo(m_model->index(rows.front(), 0));
}

std::vector<CataloguePick> RunsPage::selectedPicks() const
{
    std::vector<CataloguePick> picks;
    for (const int row : selectedRows())
        if (const CatalogueRow* r = m_model->rowAt(row); r && !r->missing)
            picks.push_back(pickOf(*r));
    return picks;
}

void RunsPage::updateButtons()
{
    const QList<int> rows = selectedRows();
    const std::size_t usable = selectedPicks().size();
    m_open->setEnabled(rows.size() == 1 && usable == 1);
    m_compare->setEnabled(usable >= 2);
    m_tags->setEnabled(!rows.isEmpty());
    m_delete->setEnabled(!rows.isEmpty());
}

void RunsPage::updateTrend()
{
    const QList<int> rows = selectedRows();
    const CatalogueRow* r = rows.isEmpty() ? nullptr : m_model->rowAt(rows.front());
    if (!r) {
        m_trend->setTrend({});
        return;
    }
    // Across every catalogued run, not only the filtered ones: a trend is the configuration's whole history.
    m_trend->setTrend(
        trendOf(m_model->allRows(), r->file.specName, r->arm.config, r->arm.arm, m_metric->currentText()));
}

void RunsPage::rescanFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Rescan a folder of run files"), m_runDirectory);
    if (dir.isEmpty())
        return;
    QString error;
    auto catalogue = RunCatalogue::open(m_libraryPath, &error);
    if (!catalogue) {
        QMessageBox::warning(this, tr("Run library"), error);
        return;
    }
    const RescanResult result = catalogue->rescan(dir);
    QString text = tr("%1 added, %2 unchanged, %3 found at a new path, %4 missing")
                       .arg(result.added)
                       .arg(result.unchanged)
                       .arg(result.moved)
                       .arg(result.missing);
    if (!result.problems.isEmpty())
        text += tr("; skipped %1 (see the tooltip of a missing row, or the command line's runs rescan)")
                    .arg(result.problems.size());
    emit status(text);
    reload();
}

void RunsPage::editTags()
{
    const QList<int> rows = selectedRows();
    if (rows.isEmpty())
        return;
    std::set<qint64> files;
    for (const int row : rows)
        files.insert(m_model->rowAt(row)->fileId);
    bool ok = false;
    const QString tags = QInputDialog::getText(this, tr("Tags"),
        tr("Tags for %n file(s) (free text, e.g. \"after-upgrade baseline\"):", nullptr, int(files.size())),
        QLineEdit::Normal, m_model->rowAt(rows.front())->tags, &ok);
    if (!ok)
        return;
    QString error;
    auto catalogue = RunCatalogue::open(m_libraryPath, &error);
    for (const qint64 id : files)
        if (catalogue && !catalogue->setTags(id, tags.trimmed(), &error))
            break;
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Tags not saved"), error);
    reload();
}

void RunsPage::deleteSelected()
{
    std::set<qint64> seen;
    std::vector<std::pair<qint64, QString>> files; // in the order shown
    bool anyPresent = false;
    for (const int row : selectedRows()) {
        const CatalogueRow* r = m_model->rowAt(row);
        if (seen.insert(r->fileId).second) {
            files.emplace_back(r->fileId, r->file.path);
            anyPresent = anyPresent || !r->missing;
        }
    }
    if (files.empty())
        return;
    QStringList paths;
    for (const auto& file : files)
        paths << file.second;
    QMessageBox box(QMessageBox::Warning, tr("Delete run files"),
        tr("%n file(s), with every configuration-arm in them:", nullptr, int(files.size())), QMessageBox::NoButton,
        this);
    box.setInformativeText(paths.mid(0, 8).join(QLatin1Char('\n'))
        + (paths.size() > 8 ? tr("\n… and %1 more").arg(paths.size() - 8) : QString()));
    QPushButton* removeFiles
        = anyPresent ? box.addButton(tr("Delete the files"), QMessageBox::DestructiveRole) : nullptr;
    QPushButton* forget = box.addButton(tr("Only forget them"), QMessageBox::AcceptRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    const bool remove = removeFiles != nullptr && box.clickedButton() == removeFiles;
    if (box.clickedButton() != forget && !remove)
        return;
    QString error;
    auto catalogue = RunCatalogue::open(m_libraryPath, &error);
    QStringList problems;
    if (!catalogue)
        problems << error;
    int deleted = 0;
    for (const auto& [id, path] : files) {
        if (remove && QFile::exists(path)) {
            if (!QFile::remove(path)) {
                problems << tr("%1: not deleted").arg(path);
                continue; // a file that stays is not forgotten either
            }
            ++deleted;
        }
        if (catalogue && !catalogue->forget(id, &error))
            problems << error;
    }
    emit status(problems.isEmpty() ? tr("%1 files forgotten, %2 deleted from disk").arg(files.size()).arg(deleted)
                                   : problems.join(QStringLiteral("; ")));
    reload();
}

void RunsPage::exportTrend()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export trend"), QStringLiteral("trend.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    QString error;
    if (!path.isEmpty() && !exportChart(*m_trend, path, QSize(1200, 700), &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

} // namespace ks
