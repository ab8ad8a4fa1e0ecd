#include "experiment/visitorder.h"

namespace ks {

VisitOrder::VisitOrder(const ExperimentSpec& spec, const QString& outPath)
    : m_schedule(spec)
{
    if (spec.rounds.until)
        m_judge.emplace(spec, outPath);
}

std::optional<int> VisitOrder::advance(std::size_t configs)
{
    const std::optional<Visit> visit = m_schedule.at(m_visit, configs);
    const bool endsRound = m_schedule.endsRound(m_visit);
    ++m_visit;
    return visit && endsRound ? std::optional(visit->round) : std::nullopt;
}

void VisitOrder::markFailed(std::size_t config)
{
    m_failed.resize(std::max(m_failed.size(), config + 1));
    m_failed[config] = true;
}

bool VisitOrder::roundEnded(int round)
{
    m_roundsDone = round;
    return m_judge && !m_roundsEnded;
}

std::optional<RoundDecision> VisitOrder::judge(int round)
{
    if (!m_judge || m_roundsEnded)
        return std::nullopt;
    std::optional<RoundDecision> decision = m_judge->judge(round);
    if (decision && !decision->stop.isEmpty()) {
        m_roundsEnded = true;
        m_schedule.endAfterRound(round);
    }
    return decision;
}

std::optional<RoundDecision> VisitOrder::stopped()
{
    if (!m_judge || m_roundsEnded || m_roundsDone == 0)
        return std::nullopt;
    m_roundsEnded = true;
    return m_judge->stopped(m_roundsDone);
}

} // namespace ks
