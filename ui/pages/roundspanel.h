#pragma once

#include "compare/rounddecision.h"

#include <QStringList>
#include <QWidget>

class QLabel;
class QTableWidget;

namespace ks {

/// The Live page's "Rounds" table for repeats that run until decided
/// (docs/experiments.md, "Repeats"): a row per judged round, a column per
/// chosen ratio of each configuration with its interval and whether it is
/// decided, and the decision in words once the rounds stop. Fed the same
/// RoundDecision live and in replay; hidden until the first one.
class RoundsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RoundsPanel(QWidget* parent = nullptr);

    void clear();
    void addDecision(const RoundDecision& decision);
    QTableWidget* table() const { return m_table; }
    /// The latest decision in words.
    QString statusText() const;

private:
    int columnOf(const RoundRatio& ratio);

    QLabel* m_title;
    QLabel* m_status;
    QTableWidget* m_table;
    QStringList m_keys; ///< "ARM\nRATIO\nCONFIG" of each ratio column, in first-seen order
};

} // namespace ks
