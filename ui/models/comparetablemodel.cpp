#include "models/comparetablemodel.h"

#include "compare/compareformat.h"
#include "compare/intervalnotes.h"

#include <QFont>

namespace ks {

namespace {

constexpr int kMetricColumns = int(std::size(kCompareColumns));

bool hasInterval(const nlohmann::json& config, const CompareColumn& c)
{
    const nlohmann::json ci = config.value("ratio_ci95", nlohmann::json::object());
    return ci.is_object() && ci.value(c.key, nlohmann::json::object()).value(c.stat, nlohmann::json()).is_array();
}

bool withinRunSignificant(const nlohmann::json& config, const CompareColumn& c)
{
    const nlohmann::json verdicts = config.value("within_run_significant", nlohmann::json::object());
    return verdicts.is_object() && verdicts.value(c.key, nlohmann::json::object()).value(c.stat, false) == true;
}

// What an interval cell's tooltip says: the verdict, then how the interval was made.
QString intervalTip(const nlohmann::json& config, const CompareColumn& c, bool significant)
{
    QStringList lines;
    if (significant)
        lines << CompareTableModel::tr("Shown to differ: the ratio's interval excludes 1, with the run-to-run "
                                       "spread measured.");
    else if (withinRunSignificant(config, c))
        lines << CompareTableModel::tr("Not shown to differ: within this one run the interval excludes 1, but how "
                                       "far one run lands from another was not measured.");
    else if (const QString rounds = roundsNeededText(config, c.key, c.stat); !rounds.isEmpty())
        lines << CompareTableModel::tr("Undecided: %1.").arg(rounds);
    if (const QString method = intervalMethodText(config); !method.isEmpty())
        lines << method + QLatin1Char('.');
    return lines.join(QLatin1Char('\n'));
}

} // namespace

void CompareTableModel::setArm(const nlohmann::json& arm)
{
    beginResetModel();
    m_arm = arm;
    endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_arm.is_object() ? 0 : int(m_arm["configs"].size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 1 + kMetricColumns + 2;
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const nlohmann::json& config = m_arm["configs"][std::size_t(index.row())];
    // A sweep's step rows say which is their step's baseline (comparepage.cpp).
    const bool isBaseline = config.value("baseline_row", config["config"] == m_arm["baseline"]);
    const bool plain = config.value("plain_row", false); // values only, no baseline label
    const int column = index.column();
    const CompareColumn* metric = column >= 1 && column <= kMetricColumns ? &kCompareColumns[column - 1] : nullptr;
    const bool significant = metric && metric->stat && !isBaseline && config.contains("significant")
        && config["significant"].contains(metric->key) && config["significant"][metric->key].value(metric->stat, false);
    switch (role) {
    case Qt::DisplayRole:
        if (column == 0)
            return QString::fromStdString(config["config"].get<std::string>())
                + (isBaseline && !plain ? tr(" (baseline)") : QString())
                + (config.value("gentle", false) ? tr(" ⚠ gentle") : QString())
                + (config.value("workload_differs", false) ? tr(" ⚠ different workload") : QString())
                + (config.value("summary_only", false) ? tr(" · summary only") : QString());
        if (metric)
            return compareCell(config, *metric, isBaseline);
        if (column == kMetricColumns + 1)
            return QStringLiteral("%1 (%2 %)")
                .arg(config["errors"].get<int>())
                .arg(config["error_rate"].get<double>() * 100, 0, 'f', 1);
        return config["max_waiting"].is_null() ? tr("n/a") : QString::number(config["max_waiting"].get<double>());
    case Qt::FontRole:
        if (significant || (column == 0 && isBaseline)) {
            QFont font;
            font.setBold(significant);
            font.setItalic(column == 0 && isBaseline && !plain);
            return font;
        }
        return {};
    case Qt::ToolTipRole:
        if (metric && metric->stat && !isBaseline && hasInterval(config, *metric))
            return intervalTip(config, *metric, significant);
        if (column == 0 && config.value("workload_differs", false))
            return tr("This configuration ran a different workload than the baseline (prompts, lengths or prompt "
                      "file): the difference is not the configuration's alone");
        if (config.value("summary_only", false))
            return tr("Imported without per-request data: these are the tool's own aggregates, so the figures and "
                      "ratios have no 95 % intervals (docs/metrics.md maps its fields to knobscope's)");
        if (column == 0 && config.value("gentle", false)) {
            const nlohmann::json share = config.value("waiting_share", nlohmann::json());
            return tr("Gentle: a request waited on the server in %1 of the scrapes (under 10 %), so this run cannot "
                      "show a queueing cliff; peak waiting counts a short opening burst too")
                .arg(share.is_number() ? QStringLiteral("%1 %").arg(share.get<double>() * 100, 0, 'f', 0) : tr("few"));
        }
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
