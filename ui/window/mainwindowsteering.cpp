// The main window's side of steering: the Live page's Steer box to the run
// controller, its answers to the log, and which arm may be steered.
#include "mainwindow.h"

#include "feeds/runcontroller.h"
#include "pages/livepage.h"
#include "store/runid.h"

#include <QLabel>

#include <algorithm>

namespace ks {

void MainWindow::connectSteering()
{
    connect(m_live, &LivePage::steerRequested, m_controller, &RunController::steer);
    connect(m_live, &LivePage::rateSteerRequested, m_controller, &RunController::steerRate);
    connect(m_controller, &RunController::steerAnswered, this, [this](const QString& setting, const QString& refused) {
        if (refused.isEmpty())
            log(tr("Steered %1 to %2").arg(m_currentRun, setting));
        else
            m_status->setText(tr("Not steered: %1").arg(refused));
    });
}

void MainWindow::updateSteering(const QString& run)
{
    // Plain concurrency and rate arms of the experiment running here; replays and probe passes are not steered.
    const RunId id = RunId::parse(run);
    const QString armName = id.hasConfig() ? id.armRun() : QString();
    const auto arm = std::find_if(m_runningSpec.arms.begin(), m_runningSpec.arms.end(),
        [&armName](const ArmSpec& a) { return a.name == armName; });
    if (!isRunning() || arm == m_runningSpec.arms.end()) {
        m_live->setSteerable(false, SteerBox::Kind::Concurrency, 1,
            isRunning() ? tr("Probe passes run at their own concurrency") : tr("No arm is running"));
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

} // namespace ks
