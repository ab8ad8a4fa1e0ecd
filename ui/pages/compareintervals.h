#pragma once

// The Compare page's sentences about its intervals: how each configuration's
// were made (compare/intervalnotes.h), and the note under the table.

#include "compare/comparisontypes.h"

#include <QString>
#include <QStringList>

namespace ks {

struct LoadedRunFile;

/// Under an arm's table: what [low-high] and * mean, then one line per
/// configuration (method, warm-up dropped, rounds that would decide, unsettled).
/// `baselineRows`: rows read as baselines too (a sweep's steps table: each step's).
QString armIntervalsText(const ComparedArm& arm, const QStringList& baselineRows = {});
/// True when some configuration of `arm` never settled (its line is then a warning).
bool armHasUnsettled(const ComparedArm& arm);
/// The page's bottom note: the files, whether intervals are in yet, summary-only
/// imports, and a calibration the spec names that is not there.
QString compareFilesNote(const LoadedRunFile& result);

} // namespace ks
