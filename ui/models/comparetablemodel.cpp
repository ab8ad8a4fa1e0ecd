#include "models/comparetablemodel.h"

#include "compare/compareformat.h"
#include "compare/intervalnotes.h"

#include <QFont>

namespace ks {

namespace {

constexpr int kMetricColumns = int(std::size(kCompareColumns));

// The cell's statistic, for a latency column.
const ComparedStat* statOf(const ComparedConfig& config, const CompareColumn& c)
{
    const auto metric = c.stat ? latencyMetricOf(c.key) : std::nullopt;
    const auto stat = c.stat ? latencyStatOf(c.stat) : std::nullopt;
    return metric && stat ? &config.stat(*metric, *stat) : nullptr;
}

// What an interval cell's tooltip says: the verdict, then how the interval was made.
QString intervalTip(const ComparedConfig& config, const CompareColumn& c, const ComparedStat& cell)
{
    QStringList lines;
    if (cell.significant.value_or(false))
        lines << CompareTableModel::tr("Shown to differ: the ratio's interval excludes 1, with the run-to-run "
                                       "spread measured.");
    else if (cell.withinRunSignificant.value_or(false))
        lines << CompareTableModel::tr("Not shown to differ: within this one run the interval excludes 1, but how "
                                       "far one run lands from another was not measured.");
    else if (const QString rounds = roundsNeededText(config, *latencyMetricOf(c.key), *latencyStatOf(c.stat));
             !rounds.isEmpty())
        lines << CompareTableModel::tr("Undecided: %1.").arg(rounds);
    if (const QString method = intervalMethodText(config); !method.isEmpty())
        lines << method + QLatin1Char('.');
    return lines.join(QLatin1Char('\n'));
}

} // namespace

void CompareTableModel::setArm(ComparedArm arm, QStringList baselineRows, QStringList plainRows)
{
    beginResetModel();
    m_arm = std::move(arm);
    m_baselineRows = std::move(baselineRows);
    m_plainRows = std::move(plainRows);
    endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_arm.configs.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 1 + kMetricColumns + 2;
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const ComparedConfig& config = m_arm.configs[std::size_t(index.row())];
    // A sweep's step rows say which is their step's baseline (comparepage.cpp).
    const bool isBaseline = config.config == m_arm.baseline || m_baselineRows.contains(config.config);
    const bool plain = m_plainRows.contains(config.config); // values only, no baseline label
    const int column = index.column();
    const CompareColumn* metric = column >= 1 && column <= kMetricColumns ? &kCompareColumns[column - 1] : nullptr;
    const ComparedStat* cell = metric ? statOf(config, *metric) : nullptr;
    const bool significant = cell && !isBaseline && cell->significant.value_or(false);
    switch (role) {
    case Qt::DisplayRole:
        if (column == 0)
            return config.config + (isBaseline && !plain ? tr(" (baseline)") : QString())
                + (config.gentle ? tr(" ⚠ gentle") : QString())
                + (config.workloadDiffers.value_or(false) ? tr(" ⚠ different workload") : QString())
                + (config.summaryOnly ? tr(" · summary only") : QString());
        if (metric)
            return compareCell(config, *metric, isBaseline);
        if (column == kMetricColumns + 1)
            return QStringLiteral("%1 (%2 %)").arg(config.errors).arg(config.errorRate * 100, 0, 'f', 1);
        return config.maxWaiting ? QString::number(*config.maxWaiting) : tr("n/a");
    case Qt::FontRole:
        if (significant || (column == 0 && isBaseline)) {
            QFont font;
            font.setBold(significant);
            font.setItalic(column == 0 && isBaseline && !plain);
            return font;
        }
        return {};
    case Qt::ToolTipRole:
        if (cell && !isBaseline && cell->ratioCi)
            return intervalTip(config, *metric, *cell);
        if (column == 0 && config.workloadDiffers.value_or(false))
            return tr("This configuration ran a different workload than the baseline (prompts, lengths or prompt "
                      "file): the difference is not the configuration's alone");
        if (config.summaryOnly)
            return tr("Imported without per-request data: these are the tool's own aggregates, so the figures and "
                      "ratios have no 95 % intervals (docs/metrics.md maps its fields to knobscope's)");
        if (column == 0 && config.gentle)
            return tr("Gentle: a request waited on the server in %1 of the scrapes (under 10 %), so this run cannot "
                      "show a queueing cliff; peak waiting counts a short opening burst too")
                .arg(config.waitingShare ? QStringLiteral("%1 %").arg(*config.waitingShare * 100, 0, 'f', 0)
                                         : tr("few"));
        return {};
    case Qt::TextAlignmentRole:
        return column == 0 ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section == 0)
        return tr("Configuration");
    if (section <= kMetricColumns)
        return QString::fromLatin1(kCompareColumns[section - 1].title);
    return section == kMetricColumns + 1 ? tr("errors") : tr("peak waiting");
}

} // namespace ks
