#include "experiment/roundjudge.h"

#include "compare/comparison.h"
#include "compare/sequentialconfidence.h"
#include "store/runfile.h"

namespace ks {

namespace {

constexpr int kResamples = 1000;

} // namespace

RoundJudge::RoundJudge(const ExperimentSpec& spec, QString path)
    : m_rule(*spec.rounds.until)
    , m_path(std::move(path))
    , m_baseline(spec.configs.front().label)
    , m_confidence(roundsConfidence(spec.raw))
{
}

std::optional<RoundDecision> RoundJudge::judge(int round) const
{
    if (round < m_rule.min)
        return std::nullopt;
    RunFile file;
    QString error;
    Comparison compare;
    if (readRunFile(m_path, &file, &error)) {
        CompareOptions options;
        options.baseline = m_baseline;
        options.resamples = kResamples;
        options.confidence = m_confidence;
        compare = compareRuns(file, options, &error);
    }
    RoundDecision decision = decideRound(compare, m_rule, round, m_confidence);
    if (!error.isEmpty())
        decision.problem = QStringLiteral("the comparison after round %1 failed: %2").arg(round).arg(error);
    return decision;
}

RoundDecision RoundJudge::stopped(int round) const
{
    RoundDecision decision;
    decision.round = round;
    decision.stop = QStringLiteral("stopped");
    decision.max = m_rule.max;
    decision.halfWidth = m_rule.halfWidth;
    decision.confidence = m_confidence;
    return decision;
}

} // namespace ks
