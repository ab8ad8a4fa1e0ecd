#include "compareintervals.h"

#include "compare/intervalnotes.h"
#include "comparepage.h"
#include "feeds/runfileloader.h"

#include <QStringList>

#include <algorithm>

namespace ks {

QString armIntervalsText(const ComparedArm& arm, const QStringList& baselineRows)
{
    const QString against = arm.baseline.isEmpty() ? ComparePage::tr("each step's baseline") : arm.baseline;
    QStringList lines = { ComparePage::tr("Ratios against %1; %2.").arg(against, intervalLegend(arm)) };
    lines << intervalLines(arm, baselineRows);
    return lines.join(QLatin1Char('\n'));
}

bool armHasUnsettled(const ComparedArm& arm)
{
    return std::any_of(
        arm.configs.begin(), arm.configs.end(), [&](const ComparedConfig& config) { return isUnsettled(arm, config); });
}

QString compareFilesNote(const LoadedRunFile& result)
{
    const QString files = !result.picks.isEmpty()
        ? ComparePage::tr("%1 from the run library (CONFIG @ID)").arg(result.picks)
        : result.otherPath.isEmpty() ? result.path
                                     : ComparePage::tr("%1 and %2 (LABEL @FILE)").arg(result.path, result.otherPath);
    // What [low-high] and * mean, and how each interval was made, is said under the table.
    QString note = result.intervals ? ComparePage::tr("%1 · ratios against the baseline, with intervals.").arg(files)
                                    : ComparePage::tr("%1 · computing intervals …").arg(files);
    // Summary-only imports (another tool's aggregates) have bars and ratios but no intervals: say why.
    for (const ComparedArm& arm : result.comparison)
        if (arm.note) {
            note += QStringLiteral(" ")
                + ComparePage::tr("Configurations marked \u201csummary only\u201d were imported from another tool "
                                  "without per-request data: their bars and ratios are its own aggregates, without "
                                  "intervals.");
            break;
        }
    if (!result.calibrationNote.isEmpty())
        note += QStringLiteral(" ") + ComparePage::tr("Calibration: %1.").arg(result.calibrationNote);
    return note;
}

} // namespace ks
