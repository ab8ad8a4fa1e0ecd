#include "roundspanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ks {

namespace {

QString percent(double fraction)
{
    return QString::number(fraction * 100, 'g', 3) + QStringLiteral(" %");
}

QString cellText(const RoundRatio& r)
{
    QString text = r.value ? QString::number(*r.value, 'f', 3) : QStringLiteral("—");
    if (r.ci95)
        text += QStringLiteral(" [%1–%2]").arg(r.ci95->first, 0, 'f', 3).arg(r.ci95->second, 0, 'f', 3);
    return text + (r.decided ? QStringLiteral("  ✓ decided") : QStringLiteral("  undecided"));
}

} // namespace

RoundsPanel::RoundsPanel(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_status(new QLabel(this))
    , m_table(new QTableWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_title->setTextFormat(Qt::PlainText);
    m_status->setWordWrap(true);
    layout->addWidget(m_title);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Four rounds in view: the last look and the three before it say whether the intervals still narrow.
    const int row = fontMetrics().height() + 8;
    m_table->verticalHeader()->setDefaultSectionSize(row);
    m_table->setMinimumHeight(2 * row + 4 * row + 4);
    clear();
}

void RoundsPanel::clear()
{
    m_keys.clear();
    m_table->clear();
    m_table->setRowCount(0);
    m_table->setColumnCount(2);
    m_table->setHorizontalHeaderLabels({ tr("Round"), tr("Decision") });
    m_title->setText(tr("Rounds"));
    m_status->clear();
    hide();
}

int RoundsPanel::columnOf(const RoundRatio& r)
{
    const QString key = r.arm + QLatin1Char('\n') + r.ratio + QLatin1Char('\n') + r.config;
    qsizetype at = m_keys.indexOf(key);
    if (at < 0) {
        m_keys << key;
        at = m_keys.size() - 1;
        const int column = int(at) + 1; // after "Round"; "Decision" stays last
        m_table->insertColumn(column);
        const QString config = r.config.isEmpty() ? tr("(no comparison)") : r.config;
        m_table->setHorizontalHeaderItem(
            column, new QTableWidgetItem(QStringLiteral("%1 %2\n%3").arg(r.arm, r.ratio, config)));
    }
    return int(at) + 1;
}

void RoundsPanel::addDecision(const RoundDecision& d)
{
    show();
    m_title->setText(tr("Rounds: each ratio against the baseline at %1 confidence; decided within ±%2 or clear of "
                        "the gate (budget %3 rounds)")
                         .arg(percent(d.confidence), percent(d.halfWidth))
                         .arg(d.max));
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto* round = new QTableWidgetItem(QString::number(d.round));
    round->setTextAlignment(Qt::AlignCenter);
    m_table->setItem(row, 0, round);
    for (const RoundRatio& r : d.ratios) {
        const int column = columnOf(r);
        auto* item = new QTableWidgetItem(cellText(r));
        if (r.decided)
            item->setBackground(QColor(0xd8, 0xf0, 0xd8));
        m_table->setItem(row, column, item);
    }
    const QString decision = d.stop.isEmpty() ? tr("another round")
        : d.stop == QLatin1String("decided")  ? tr("decided")
        : d.stop == QLatin1String("budget")   ? tr("budget spent")
                                              : tr("stopped");
    m_table->setItem(row, m_table->columnCount() - 1, new QTableWidgetItem(decision));
    QString status = roundSentence(d);
    if (!d.problem.isEmpty())
        status += QStringLiteral(" (%1)").arg(d.problem);
    m_status->setText(status);
    m_table->scrollToBottom();
}

QString RoundsPanel::statusText() const
{
    return m_status->text();
}

} // namespace ks
