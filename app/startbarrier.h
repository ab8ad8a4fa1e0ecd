#pragma once

#include <QString>

/// Waits until `startAtMs` (ms since the Unix epoch on this host's wall clock)
/// so that the shards of one run start together, with a countdown on stderr
/// (in place on a terminal, a line every 10 s otherwise). The event loop runs
/// meanwhile (a --metrics-port endpoint answers). A start time already past
/// is said, and the run starts at once: the merge records the skew.
void waitForStart(qint64 startAtMs, const QString& who);
