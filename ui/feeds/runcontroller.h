#pragma once

#include "runfeed.h"
#include "spec/experimentspec.h"
#include "store/runfile.h"

#include <QPointer>
#include <QThread>

#include <functional>
#include <memory>

namespace ks {

class ExperimentRunner;

/// Runs one experiment at a time in a worker thread (STYLE.md: worker
/// lifecycle) and relays its value-type signals to the GUI thread. The window
/// never waits on the run: start and stop return at once.
class RunController : public RunFeed {
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

signals:
    /// The run file's `experiment` line, and then each finished run as the file
    /// holds it: the window follows the experiment without reading the file back.
    void experimentStarted(const QByteArray& json);
    void runRecorded(std::shared_ptr<const ks::RunData> run);
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
