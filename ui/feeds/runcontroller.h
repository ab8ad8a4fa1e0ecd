#pragma once

#include "spec/experimentspec.h"
#include "store/runfile.h"

#include <QPointer>
#include <QThread>

#include <functional>
#include <memory>

namespace ks {

class ExperimentRunner;
class RunSource;

/// Runs one experiment at a time in a worker thread (docs/architecture.md: worker
/// lifecycle). The window follows the run through the runner's own RunSource
/// signals (queued into the GUI thread), handed over by sourceStarted(); it
/// never waits on the run: start and stop return at once.
class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    void start(const ExperimentSpec& spec, const QString& outPath);
    /// Ends the current arm cleanly and closes the run file; finished() follows.
    void stop();
    /// Asks the running arm to go on at `concurrency` streams (ExperimentRunner::steer);
    /// steerAnswered() follows.
    void steer(int concurrency);
    /// Asks the running rate arm to go on at `rate` requests per second
    /// (ExperimentRunner::steerRate); steerAnswered() follows.
    void steerRate(double rate);
    bool isRunning() const { return m_thread != nullptr; }
    QString outPath() const { return m_outPath; }
    /// The running experiment's source; nullptr when none runs.
    RunSource* source() const;

signals:
    /// An experiment's runner exists and has not started yet: connect to its
    /// signals now (they arrive queued, from the worker thread). Deleted with its thread.
    void sourceStarted(ks::RunSource* source);
    /// The experiment ended and its thread is gone (isRunning() is false):
    /// `message` is empty when all went well, else what went wrong.
    void finished(const QString& message);
    /// `refused` is empty when the arm now runs at `setting` ("concurrency 12",
    /// "rate 4.5"), else why not.
    void steerAnswered(const QString& setting, const QString& refused);

private:
    /// Runs `steer` on the runner in its thread; steerAnswered(setting, its answer) follows.
    void ask(const QString& setting, std::function<QString(ExperimentRunner*)> steer);
    void cleanUp();

    QThread* m_thread = nullptr;
    QPointer<ExperimentRunner> m_runner;
    QString m_outPath;
};

} // namespace ks
