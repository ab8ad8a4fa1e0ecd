#include "compareintervals.h"

#include "compare/intervalnotes.h"
#include "comparepage.h"
#include "feeds/runfileloader.h"

#include <QStringList>

namespace ks {

QString armIntervalsText(const nlohmann::json& arm)
{
    if (!arm.is_object())
        return {};
    const nlohmann::json baseline = arm.value("baseline", nlohmann::json());
    const QString against = baseline.is_string() ? QString::fromStdString(baseline.get<std::string>())
                                                 : ComparePage::tr("each step's baseline");
    QStringList lines = { ComparePage::tr("Ratios against %1; %2.").arg(against, intervalLegend(arm)) };
    lines << intervalLines(arm);
    return lines.join(QLatin1Char('\n'));
}

bool armHasUnsettled(const nlohmann::json& arm)
{
    for (const nlohmann::json& config : arm.value("configs", nlohmann::json::array()))
        if (isUnsettled(arm, config))
            return true;
    return false;
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
    for (const nlohmann::json& arm : result.compare)
        if (arm.contains("note")) {
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
