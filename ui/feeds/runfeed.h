#pragma once

#include "load/loadrunner.h"
#include "metrics/aggregator.h"

#include <QObject>

namespace ks {

/// What feeds the dashboard during a run, live (RunController) or replayed
/// (ReplayController): the same value-type events, so the window handles both
/// with one set of slots.
class RunFeed : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

signals:
    void runStarted(const QString& run, int index, int total);
    void progressed(const ks::LoadProgress& progress);
    void snapshotReady(const QString& run, const ks::RunSnapshot& snapshot);
    void runFinished(const QString& run, const QByteArray& summaryJson);
    void serverLine(const QString& line);
    /// `message` is empty when all went well, else what went wrong or was skipped.
    void finished(const QString& message);
};

} // namespace ks
