#pragma once

#include "store/summaryline.h"

#include <QStringList>

namespace ks {

struct LoadProgress;
struct RunFile;

// The main window's status bar and log lines for a run, live or replayed.

/// Minutes and seconds, "m:ss".
QString clockText(double seconds);
/// The log line for the start of an arm; `total` is 0 when not known yet.
QString armStartedLine(const QString& run, int index, int total, bool totalIsEstimate);
/// "arm 2 of about 5" for the status bar.
QString armPosition(int index, int total, bool totalIsEstimate);
/// " · arm ETA m:ss", or empty when nothing predicts the end.
QString armEta(const LoadProgress& p);
/// The log line for a finished run: status, TTFT split and warnings.
QString runFinishedLine(const QString& run, const RunSummary& summary);
/// What reading a run file noted: its first issues, a cut-off last line, runs without a summary.
QStringList runFileNotes(const RunFile& file);

} // namespace ks
