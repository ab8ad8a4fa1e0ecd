#include "library/cataloguepicks.h"

#include "import/resultfile.h"
#include "library/runcatalogue.h"
#include "store/runid.h"

namespace ks {

CataloguePick pickOf(const CatalogueRow& row)
{
    return { row.id, row.file.path, row.arm.config, row.arm.arm };
}

bool pickedRunFile(const std::vector<CataloguePick>& picks, RunFile* out, QString* error, const ReadProgress& progress)
{
    *out = {};
    if (picks.empty()) {
        *error = QStringLiteral("nothing picked");
        return false;
    }
    QStringList renamed;
    for (const CataloguePick& pick : picks) {
        RunFile file;
        if (!readAnyRunFile(pick.path, &file, error, progress)) {
            *error = QStringLiteral("@%1: %2").arg(pick.id).arg(*error);
            return false;
        }
        if (out->experiment.is_null())
            out->experiment = file.experiment;
        const QString label = QStringLiteral("@%1").arg(pick.id);
        int kept = 0;
        for (RunData& run : file.runs) {
            if (run.config != pick.config || run.arm != pick.arm)
                continue;
            run.config += QLatin1Char(' ') + label;
            RunId id = RunId::parse(run.run); // keeps @VALUE, #N and ~SEGMENT
            id.config = run.config;
            if (pick.arm != picks.front().arm) {
                id.arm = picks.front().arm;
                run.arm = picks.front().arm;
            }
            run.run = id.toString();
            run.requests.setRun(run.run);
            out->runs.push_back(std::move(run));
            ++kept;
        }
        if (kept == 0) {
            *error = QStringLiteral("@%1: %2 holds no run of %3 / %4 (the file changed since it was catalogued: "
                                    "knobscope runs rescan)")
                         .arg(pick.id)
                         .arg(pick.path, pick.config, pick.arm);
            return false;
        }
        if (pick.arm != picks.front().arm)
            renamed << QStringLiteral("\"%1\" (%2)").arg(pick.arm, label);
        for (const RunFileIssue& issue : file.issues)
            out->issues.push_back({ issue.line, label + QStringLiteral(": ") + issue.message });
        out->truncated = out->truncated || file.truncated;
        out->lines += file.lines;
    }
    if (!renamed.isEmpty())
        out->issues.push_back({ 0,
            QStringLiteral("arms %1 are compared as \"%2\", the first pick's arm")
                .arg(renamed.join(QStringLiteral(", ")), picks.front().arm) });
    return true;
}

} // namespace ks
