#include "experiment/roundschedule.h"

#include "experiment/armplan.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace ks {

RoundSchedule::RoundSchedule(const ExperimentSpec& spec)
{
    for (const ArmSpec& arm : spec.arms)
        if (!arm.sweep)
            m_rounds = std::max(m_rounds, arm.repeats);
    m_interleaved = spec.rounds.order == RoundsSpec::Order::Interleaved && !spec.search && m_rounds > 1;
    if (!m_interleaved) {
        m_rounds = 1;
        m_runsOfRound.push_back(int(ArmPlan::runsInRound(spec, 0)));
        return;
    }
    for (int r = 0; r <= m_rounds; ++r)
        m_runsOfRound.push_back(int(ArmPlan::runsInRound(spec, r)));
    // mt19937_64 is the same generator everywhere, and the draw below is written
    // out (std::shuffle's is the library's own), so a seed gives one order on every platform.
    std::mt19937_64 draw(spec.rounds.seed);
    std::vector<std::size_t> order(spec.configs.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    for (int r = 1; r <= m_rounds; ++r) {
        for (std::size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1], order[std::size_t(draw() % i)]);
        for (std::size_t config : order)
            m_visits.push_back({ config, r });
    }
}

std::optional<Visit> RoundSchedule::at(std::size_t i, std::size_t configs) const
{
    if (!interleaved())
        return i < configs ? std::optional<Visit>(Visit { i, 0 }) : std::nullopt;
    return i < m_visits.size() ? std::optional<Visit>(m_visits[i]) : std::nullopt;
}

bool RoundSchedule::endsRound(std::size_t i) const
{
    return interleaved() && i < m_visits.size()
        && (i + 1 == m_visits.size() || m_visits[i + 1].round != m_visits[i].round);
}

void RoundSchedule::endAfterRound(int round)
{
    m_visits.erase(
        std::remove_if(m_visits.begin(), m_visits.end(), [round](const Visit& v) { return v.round > round; }),
        m_visits.end());
}

int RoundSchedule::runsBefore(std::size_t i) const
{
    if (!interleaved())
        return int(i) * m_runsOfRound[0];
    int runs = 0;
    for (std::size_t k = 0; k < i && k < m_visits.size(); ++k)
        runs += m_runsOfRound[std::size_t(m_visits[k].round)];
    return runs;
}

int RoundSchedule::totalRuns(std::size_t configs) const
{
    return interleaved() ? runsBefore(m_visits.size()) : int(configs) * m_runsOfRound[0];
}

} // namespace ks
