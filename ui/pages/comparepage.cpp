#include "comparepage.h"

#include "charts/barchart.h"
#include "charts/cdfplot.h"
#include "charts/chartstyle.h"
#include "charts/comparecharts.h"
#include "charts/comparemetrics.h"
#include "charts/kneeplot.h"
#include "compare/compareformat.h"
#include "compare/diagnosis.h"
#include "compare/searchreport.h"
#include "compare/sweepcompare.h"
#include "compareintervals.h"
#include "feeds/runfileloader.h"
#include "knobrangepanel.h"
#include "library/runcatalogue.h"
#include "models/comparetablemodel.h"
#include "pages/scrollinglabel.h"
#include "report/compareexport.h"
#include "report/comparereport.h"
#include "report/htmlreport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

namespace {

struct Metric {
    const char* key;
    const char* title;
};
const Metric kMetrics[] = { { "ttft_ms", "TTFT" }, { "tpot_ms", "TPOT" }, { "itl_ms", "ITL" }, { "e2e_ms", "E2E" },
    { "throughput", "Throughput" } };

// A sweep arm's table: one row per step and configuration, from the steps'
// own entries (ratios against the baseline at the same step), labelled
// "CONFIG · STEP" in step order.
struct SweepStepsTable {
    ComparedArm arm; ///< no baseline of its own: each step has one
    QStringList baselineRows; ///< each step's baseline row
    QStringList plainRows; ///< a step with one configuration has no ratio to show: its values, unlabelled
};

SweepStepsTable sweepStepsTable(const Comparison& compare, const ComparedArm& sweepArm)
{
    SweepStepsTable table;
    table.arm.arm = sweepArm.arm;
    for (const ComparedArm& step : compare) {
        if (step.sweepArm != sweepArm.arm)
            continue;
        for (ComparedConfig row : step.configs) {
            const QString label = row.config + QStringLiteral(" · ") + step.arm;
            if (row.config == step.baseline)
                table.baselineRows << label;
            if (step.configs.size() == 1)
                table.plainRows << label;
            row.config = label;
            table.arm.configs.push_back(std::move(row));
        }
    }
    return table;
}

} // namespace

ComparePage::ComparePage(RunFileLoader* loader, QWidget* parent)
    : QWidget(parent)
    , m_loader(loader)
    , m_arm(new QComboBox(this))
    , m_baseline(new QComboBox(this))
    , m_metric(new QComboBox(this))
    , m_note(new QLabel(this))
    , m_warning(new QLabel(this))
    , m_why(new QLabel(this))
    , m_search(new QLabel(this))
    , m_intervals(new QLabel(this))
    , m_bars(new BarChart(this))
    , m_cdf(new CdfPlot(this))
    , m_knee(new KneePlot(this))
    , m_range(new KnobRangePanel(this))
    , m_tabs(new QTabWidget(this))
    , m_model(new CompareTableModel(this))
    , m_tableView(new QTableView(this))
{
    for (const Metric& m : kMetrics)
        m_metric->addItem(QString::fromLatin1(m.title), QString::fromLatin1(m.key));
    m_arm->setToolTip(tr("Arm (load shape) to compare"));
    m_baseline->setToolTip(tr("Configuration the ratios are against"));
    const QList<QWidget*> exportControls = createExportControls(this, m_arm, m_metric);

    auto* allowDifferent = new QCheckBox(tr("Different workloads"), this);
    allowDifferent->setToolTip(tr("Compare an arm whose configurations ran different workloads (prompts, lengths, "
                                  "prompt file) instead of refusing it; such configurations are marked"));
    connect(allowDifferent, &QCheckBox::toggled, m_loader, &RunFileLoader::setAllowDifferentWorkloads);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Arm"), this));
    top->addWidget(m_arm);
    top->addWidget(new QLabel(tr("Baseline"), this));
    top->addWidget(m_baseline);
    top->addWidget(new QLabel(tr("Metric"), this));
    top->addWidget(m_metric);
    top->addStretch(1);
    top->addWidget(allowDifferent);
    // The export controls get a row of their own: in one row with the choices
    // they made the page too wide for the editor beside it at 1280 px.
    auto* exportRow = new QHBoxLayout;
    exportRow->addStretch(1);
    for (QWidget* control : exportControls)
        exportRow->addWidget(control);

    m_warning->setStyleSheet(QStringLiteral("color: #c87800;"));
    m_warning->setWordWrap(true);
    m_note->setWordWrap(true);
    m_search->setWordWrap(true);
    m_search->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_search->setObjectName(QStringLiteral("searchResult"));
    m_search->hide();
    m_intervals->setObjectName(QStringLiteral("intervals"));
    m_tableView->setModel(m_model);
    m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tableView->verticalHeader()->hide();
    m_tableView->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->addWidget(m_bars);
    charts->addWidget(m_cdf);
    charts->addWidget(m_knee); // shown instead of bars and CDF for a sweep arm
    m_knee->hide();
    m_tabs->addTab(charts, tr("Configuration&s"));
    m_tabs->addTab(m_range, tr("Knob ran&ge")); // shown when the file varies a knob
    m_tabs->setTabVisible(1, false);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tabs);
    split->addWidget(m_tableView);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({ 480, 150 });
    charts->setSizes({ 500, 500 });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(exportRow);
    layout->addWidget(m_warning);
    layout->addWidget(m_whyArea = scrollingLabel(m_why, this, 5)); // a search's ten probes: ten "why" lines
    layout->addWidget(m_search);
    layout->addWidget(split, 1);
    layout->addWidget(scrollingLabel(m_intervals, this, 5));
    layout->addWidget(m_note);

    connect(m_arm, &QComboBox::currentTextChanged, this, [this] {
        if (!m_filling)
            refresh();
    });
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_filling)
            refresh();
    });
    connect(m_baseline, &QComboBox::currentTextChanged, this, [this](const QString& label) {
        if (!m_filling && m_result && !label.isEmpty()) {
            m_note->setText(tr("Comparing against %1 …").arg(label));
            m_loader->setBaseline(label);
        }
    });
    m_note->setText(tr("Nothing to compare yet: run an experiment, or open a run file (File → Open run file)."));
}

QStringList ComparePage::arms() const
{
    return m_result ? comparedArms(*m_result) : QStringList();
}

void ComparePage::setResult(std::shared_ptr<const LoadedRunFile> result)
{
    m_result = std::move(result);
    m_filling = true;
    const QString arm = m_arm->currentText();
    m_arm->clear();
    m_arm->addItems(arms());
    if (arms().contains(arm)) {
        m_arm->setCurrentText(arm);
    } else {
        // Open on the first arm that made a server queue: a gentle arm compares idle servers.
        for (const ComparedArm& a : m_result->comparison) {
            if (!a.gentle) {
                m_arm->setCurrentText(a.arm);
                break;
            }
        }
    }
    // The reasoning and tool-call charts only when the comparison has their figures.
    const QString metric = m_metric->currentData().toString();
    while (m_metric->count() > int(std::size(kMetrics)))
        m_metric->removeItem(m_metric->count() - 1);
    for (const ReasoningMetric& m : kReasoningMetrics)
        if (comparisonHasMetric(m_result->comparison, QLatin1String(m.key)))
            m_metric->addItem(tr(m.title), QString::fromLatin1(m.key));
    m_metric->setCurrentIndex(std::max(0, m_metric->findData(metric)));
    m_filling = false;
    if (!m_result->error.isEmpty())
        m_note->setText(m_result->error);
    else if (m_result->comparison.empty())
        m_note->setText(tr("%1 has no load arms to compare.").arg(m_result->path));
    else
        m_note->setText(compareFilesNote(*m_result));
    m_range->setResult(m_result);
    // A search's result is the file's, not an arm's: its best value, interval and plateau
    // (the probes are on the Knob range tab and in the table).
    const QString search = m_result->file ? searchHeadline(m_result->file->search) : QString();
    m_search->setText(search);
    m_search->setVisible(!search.isEmpty());
    m_tabs->setTabVisible(1, m_range->hasKnobChart() || m_range->hasPareto() || m_range->hasHeatmap());
    refresh();
}

void ComparePage::selectArm(const QString& arm)
{
    m_arm->setCurrentText(arm);
    refresh();
}

void ComparePage::selectMetric(const QString& key)
{
    const int index = m_metric->findData(key);
    if (index >= 0)
        m_metric->setCurrentIndex(index);
    refresh();
}

void ComparePage::refresh()
{
    if (!m_result)
        return;
    const ComparedArm* arm = armNamed(m_result->comparison, m_arm->currentText());
    if (!arm) {
        m_model->clear();
        m_intervals->clear();
        return;
    }
    m_filling = true;
    m_baseline->clear();
    for (const ComparedConfig& c : arm->configs)
        m_baseline->addItem(c.config);
    m_baseline->setCurrentText(arm->baseline);
    m_filling = false;
    m_model->setArm(*arm);
    m_warning->setText(arm->warning ? QStringLiteral("⚠ ") + *arm->warning : QString());
    m_warning->setVisible(arm->warning.has_value());
    QStringList why = diagnosisLines(*arm);
    if (const QString spec = specDecodeLine(*arm); !spec.isEmpty())
        why << spec;
    m_why->setText(why.join(QLatin1Char('\n')));
    m_whyArea->setVisible(!why.isEmpty());
    const bool sweep = arm->isSweep();
    m_bars->setVisible(!sweep);
    m_cdf->setVisible(!sweep);
    m_knee->setVisible(sweep);
    m_metric->setEnabled(!sweep);
    showIntervals(*arm);
    if (sweep) {
        SweepStepsTable steps = sweepStepsTable(m_result->comparison, *arm);
        showIntervals(steps.arm, steps.baselineRows);
        m_model->setArm(std::move(steps.arm), std::move(steps.baselineRows), std::move(steps.plainRows));
        showKnee(m_arm->currentText());
        m_warning->setText(sweepCapacityLine(*arm));
        m_warning->setVisible(true);
        return;
    }
    showMetric(m_arm->currentText(), m_metric->currentData().toString());
}

QString ComparePage::intervalsText() const
{
    return m_intervals->text();
}

void ComparePage::showIntervals(const ComparedArm& arm, const QStringList& baselineRows)
{
    // A configuration that never settled turns the lines into a warning.
    m_intervals->setText(armIntervalsText(arm, baselineRows));
    m_intervals->setStyleSheet(armHasUnsettled(arm) ? QStringLiteral("color: #c87800;") : QString());
}

bool ComparePage::showKnee(const QString& arm)
{
    return m_result && drawKnee(*m_knee, *m_result, arm);
}

void ComparePage::showMetric(const QString& arm, const QString& key)
{
    if (!m_result)
        return;
    drawMetricBars(*m_bars, *m_result, arm, key);
    drawMetricCdf(*m_cdf, *m_result, arm, key);
}

bool ComparePage::exportChart(
    const QString& chart, const QString& arm, const QString& path, const QSize& size, QString* error) const
{
    if (!m_result) {
        *error = tr("no arm \"%1\" to export (arms: %2)").arg(arm, QString());
        return false;
    }
    return exportCompareChart(*m_result, chart, arm, path, size, error);
}

bool ComparePage::exportTable(const QString& path, QString* error) const
{
    if (!m_result) {
        *error = tr("nothing to export");
        return false;
    }
    return writeCompareTable(m_result->comparison, path, error);
}

bool ComparePage::exportReport(const QString& directory, QString* error) const
{
    if (!m_result) {
        *error = tr("nothing to export: no load arms");
        return false;
    }
    return writeCompareReport(*m_result, directory, error);
}

bool ComparePage::exportHtmlReport(const QString& path, QString* error) const
{
    if (!m_result) {
        *error = tr("nothing to export: no load arms");
        return false;
    }
    return writeHtmlReport(*m_result, path, error, RunCatalogue::defaultPath());
}

void ComparePage::showKnobRange()
{
    if (m_tabs->isTabVisible(1))
        m_tabs->setCurrentIndex(1);
}

} // namespace ks
