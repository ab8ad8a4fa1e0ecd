#include "runstatustext.h"

#include "load/loadrunner.h"
#include "mainwindow.h"
#include "metrics/ttftsplit.h"
#include "store/runfile.h"

#include <algorithm>

namespace ks {

QString clockText(double seconds)
{
    const int s = int(seconds + 0.5);
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString armStartedLine(const QString& run, int index, int total, bool totalIsEstimate)
{
    // A replay does not know how many runs the file holds until it ends.
    return total > 0 ? MainWindow::tr("Arm %1 of %2%3: %4")
                           .arg(index + 1)
                           .arg(totalIsEstimate ? MainWindow::tr("about ") : QString())
                           .arg(total)
                           .arg(run)
                     : MainWindow::tr("Arm %1: %2").arg(index + 1).arg(run);
}

QString armPosition(int index, int total, bool totalIsEstimate)
{
    return total > 0 ? MainWindow::tr("arm %1 of %2%3")
                           .arg(index + 1)
                           .arg(totalIsEstimate ? MainWindow::tr("about ") : QString())
                           .arg(total)
                     : MainWindow::tr("arm %1").arg(index + 1);
}

QString armEta(const LoadProgress& p)
{
    if (p.expected > 0 && p.done > 0)
        return MainWindow::tr(" · arm ETA %1")
            .arg(clockText(p.elapsedS * double(p.expected - p.done) / double(p.done)));
    if (p.durationS > 0)
        return MainWindow::tr(" · arm ETA %1").arg(clockText(std::max(0.0, p.durationS - p.elapsedS)));
    return {};
}

QString runFinishedLine(const QString& run, const RunSummary& summary)
{
    QString line = MainWindow::tr("Finished %1: %2").arg(run, summary.status.value_or(QString()));
    if (const QString split = ttftSplitBrief(summary.rest); !split.isEmpty())
        line += MainWindow::tr("\n  TTFT split: %1").arg(split);
    for (const QString& w : summary.warnings.value_or(QStringList()))
        line += QStringLiteral("\n  warning: ") + w;
    return line;
}

QStringList runFileNotes(const RunFile& file)
{
    QStringList notes;
    constexpr std::size_t kShownIssues = 20; // a badly broken file stays readable
    const auto& issues = file.issues;
    for (std::size_t i = 0; i < issues.size() && i < kShownIssues; ++i)
        notes << MainWindow::tr("line %1: %2").arg(issues[i].line).arg(issues[i].message);
    if (issues.size() > kShownIssues)
        notes << MainWindow::tr("%1 more issues, the last on line %2")
                     .arg(issues.size() - kShownIssues)
                     .arg(issues.back().line);
    if (file.truncated)
        notes << MainWindow::tr(
            "the file ends in the middle of line %1: the run was killed or is still being written; everything "
            "before it is shown")
                     .arg(file.lines);
    for (const RunData& run : file.runs)
        if (!run.summary)
            notes << MainWindow::tr("%1 has no summary line: it did not finish").arg(run.run);
    return notes;
}

} // namespace ks
