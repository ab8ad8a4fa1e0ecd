// The order of an experiment's visits (docs/experiments.md, "Repeats"): one
// configuration's turn after another as the RoundSchedule gives them, and, for
// repeats that run until decided, the decision after each round.
#include "experiment/experimentrunner.h"

namespace ks {

void ExperimentRunner::startConfig()
{
    std::optional<Visit> visit;
    while (!m_stopRequested && (visit = m_schedule.at(m_visit, m_spec.configs.size()))
        && visit->config < m_failed.size() && m_failed[visit->config])
        nextVisit(); // its server could not start in an earlier round
    if (m_stopRequested || !visit) {
        finishExperiment();
        return;
    }
    m_config = visit->config;
    m_round = visit->round;
    m_arm = 0;
    m_runInConfig = 0;
    m_restartedForProbes = false;
    m_run = m_spec.configs[m_config].label;
    // With restarts between configurations every visit gets a fresh server,
    // also the next round of the one configuration there is.
    const bool needStart = m_spec.server && (!m_server.isUp() || m_spec.server->restartBetweenConfigs);
    if (needStart)
        restartServer();
    else
        probeServerThenStartArm();
}

void ExperimentRunner::concludeSearchProbe()
{
    m_search->concludeProbe(m_config, m_stopRequested, m_problems);
    if (const nlohmann::json line = m_search->takeProbeLine(); !line.is_null()) {
        m_writer.write(line);
        emit searchProbed(line);
    }
}

void ExperimentRunner::endConfig()
{
    m_plan.reset();
    m_armProblem.clear();
    if (m_search)
        concludeSearchProbe();
    nextVisit();
    const bool last = !m_schedule.at(m_visit, m_spec.configs.size()) || m_stopRequested;
    if (m_server.isRunning() && (last || m_spec.server->restartBetweenConfigs)) {
        m_server.stopThen(ServerSession::AfterStop::StartConfig);
        return;
    }
    QMetaObject::invokeMethod(this, &ExperimentRunner::startConfig, Qt::QueuedConnection);
}

void ExperimentRunner::nextVisit()
{
    const std::optional<Visit> visit = m_schedule.at(m_visit, m_spec.configs.size());
    const bool endsRound = m_schedule.endsRound(m_visit);
    ++m_visit;
    if (visit && endsRound)
        afterRound(visit->round);
}

void ExperimentRunner::afterRound(int round)
{
    if (m_stopRequested)
        return; // a round cut short; a stopped experiment says so once, as it closes (writeStoppedRound)
    m_roundsDone = round;
    if (!m_judge || m_roundsEnded || m_writeFailed)
        return;
    flushFile();
    const std::optional<RoundDecision> decision = m_judge->judge(round);
    if (!decision)
        return; // before the first look
    m_writer.write(roundLine(*decision));
    flushFile();
    if (!decision->problem.isEmpty())
        m_problems << decision->problem;
    if (!decision->stop.isEmpty()) {
        m_roundsEnded = true;
        m_schedule.endAfterRound(round);
    }
    emit roundDecided(*decision);
}

void ExperimentRunner::writeStoppedRound()
{
    if (!m_judge || m_roundsEnded || !m_stopRequested || m_writeFailed || m_roundsDone == 0)
        return;
    m_roundsEnded = true;
    const RoundDecision decision = m_judge->stopped(m_roundsDone);
    m_writer.write(roundLine(decision));
    emit roundDecided(decision);
}

int ExperimentRunner::nextRunIndex()
{
    return m_schedule.runsBefore(m_visit) + m_runInConfig++;
}

int ExperimentRunner::runTotal() const
{
    // Sweeps may stop early and rounds end when decided, so the total is an
    // estimate (docs/experiments.md, "Sweeps" and "Repeats").
    return m_schedule.totalRuns(m_search ? m_search->plannedConfigs() : m_spec.configs.size());
}

} // namespace ks
