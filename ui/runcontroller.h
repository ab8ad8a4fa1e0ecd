#pragma once

#include "load/loadrunner.h"
#include "metrics/aggregator.h"
#include "run/experimentspec.h"

#include <QObject>
#include <QPointer>
#include <QThread>

namespace ks {

class ExperimentRunner;

/// Runs one experiment at a time in a worker thread (STYLE.md: worker
/// lifecycle) and relays its value-type signals to the GUI thread. The window
/// never waits on the run: start and stop return at once.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    void start(const ExperimentSpec& spec, const QString& outPath);
    /// Ends the current arm cleanly and closes the run file; finished() follows.
    void stop();
    bool isRunning() const { return m_thread != nullptr; }
    QString outPath() const { return m_outPath; }

signals:
    void runStarted(const QString& run, int index, int total);
    void progressed(const ks::LoadProgress& progress);
    void snapshotReady(const QString& run, const ks::RunSnapshot& snapshot);
    void runFinished(const QString& run, const QByteArray& summaryJson);
    void serverLine(const QString& line);
    /// `message` is empty on success, else what went wrong (the file stays valid).
    void finished(const QString& message);

private:
    void cleanUp();

    QThread* m_thread = nullptr;
    QPointer<ExperimentRunner> m_runner;
    QString m_outPath;
};

} // namespace ks
