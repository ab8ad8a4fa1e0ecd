#pragma once

// The window's side of steering: the Live page's Steer box to the run
// controller, which arm may be steered, and what became of each command.

#include <QObject>
#include <QString>

namespace ks {

class LivePage;
class RunController;
struct ExperimentSpec;

class SteeringLink : public QObject {
    Q_OBJECT
public:
    SteeringLink(LivePage* live, RunController* controller, QObject* parent);

    /// A run began: the Steer box is enabled for a plain concurrency or rate
    /// arm of `running` (the experiment this window runs; null for a replay),
    /// at the run's setting, and disabled saying why otherwise.
    void runStarted(const QString& run, const ExperimentSpec* running);
    /// Nothing runs any more.
    void stopped();

signals:
    /// "Steered RUN to SETTING", for the log.
    void steered(const QString& line);
    /// Why a command was refused, for the status bar.
    void refused(const QString& line);

private:
    LivePage* m_live;
    QString m_run;
};

} // namespace ks
