#include "steeringlink.h"

#include "feeds/runcontroller.h"
#include "pages/livepage.h"
#include "spec/experimentspec.h"
#include "store/runid.h"

#include <algorithm>

namespace ks {

SteeringLink::SteeringLink(LivePage* live, RunController* controller, QObject* parent)
    : QObject(parent)
    , m_live(live)
{
    connect(live, &LivePage::steerRequested, controller, &RunController::steer);
    connect(live, &LivePage::rateSteerRequested, controller, &RunController::steerRate);
    connect(controller, &RunController::steerAnswered, this, [this](const QString& setting, const QString& refusal) {
        if (refusal.isEmpty())
            emit steered(tr("Steered %1 to %2").arg(m_run, setting));
        else
            emit refused(tr("Not steered: %1").arg(refusal));
    });
}

void SteeringLink::runStarted(const QString& run, const ExperimentSpec* running)
{
    m_run = run;
    // Plain concurrency and rate arms of the experiment running here; replays and probe passes are not steered.
    const RunId id = RunId::parse(run);
    const QString armName = id.hasConfig() ? id.armRun() : QString();
    if (!running) {
        stopped();
        return;
    }
    const auto arm = std::find_if(
        running->arms.begin(), running->arms.end(), [&armName](const ArmSpec& a) { return a.name == armName; });
    if (arm == running->arms.end()) {
        m_live->setSteerable(false, SteerBox::Kind::Concurrency, 1, tr("Probe passes run at their own concurrency"));
        return;
    }
    const bool rate = arm->mode == LoadSpec::Mode::Rate;
    const SteerBox::Kind kind = rate ? SteerBox::Kind::Rate : SteerBox::Kind::Concurrency;
    if (arm->sweep || arm->repeats > 1) {
        m_live->setSteerable(false, kind, 1, tr("A sweep or an arm with repeats follows its own plan: not steered"));
        return;
    }
    // A segment's name holds its setting (ARM~c12, ARM~r4.5); the arm as it started, its spec's.
    const QString setting = id.setting();
    const QChar prefix = rate ? QLatin1Char('r') : QLatin1Char('c');
    const double value = setting.startsWith(prefix) ? setting.mid(1).toDouble() : rate ? arm->rate : arm->concurrency;
    m_live->setSteerable(true, kind, value);
}

void SteeringLink::stopped()
{
    m_live->setSteerable(false, SteerBox::Kind::Concurrency, 1, tr("No arm is running"));
}

} // namespace ks
