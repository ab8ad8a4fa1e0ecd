#include "experiment/armplan.h"
#include "store/runid.h"

namespace ks {

namespace {

constexpr int kSweepFailuresToStop = 2;

QString overName(const SweepSpec& sweep)
{
    return sweep.over == SweepSpec::Over::Rate ? QStringLiteral("rate") : QStringLiteral("concurrency");
}

} // namespace

QString sweepValueText(double value)
{
    return QString::number(value, 'g', 6);
}

ArmPlan::ArmPlan(const ExperimentSpec& spec, const ConfigSpec& config, const ArmSpec& arm, int round)
    : m_spec(spec)
    , m_config(config)
    , m_arm(arm)
    , m_round(round)
{
    // A sweep runs whole in the first round; a plain arm only up to its own repeats.
    if (round > (arm.sweep ? 1 : arm.repeats))
        m_done = true;
}

int ArmPlan::estimatedRuns(const ArmSpec& arm)
{
    int steps = 1;
    if (arm.sweep)
        steps = arm.sweep->autoRates ? arm.sweep->steps + 2 : int(arm.sweep->values.size());
    return steps * arm.repeats;
}

std::size_t ArmPlan::stepsPerConfig(const ExperimentSpec& spec)
{
    if (!spec.probes)
        return spec.arms.size();
    return spec.arms.size() + (spec.probes->acrossRestart ? 2 : 1);
}

std::size_t ArmPlan::runsPerConfig(const ExperimentSpec& spec)
{
    std::size_t runs = stepsPerConfig(spec) - spec.arms.size(); // probe passes
    for (const ArmSpec& arm : spec.arms)
        runs += std::size_t(estimatedRuns(arm));
    return runs;
}

std::size_t ArmPlan::runsInRound(const ExperimentSpec& spec, int round)
{
    if (round == 0)
        return runsPerConfig(spec);
    std::size_t runs = round == 1 ? stepsPerConfig(spec) - spec.arms.size() : 0; // probe passes: the first visit
    for (const ArmSpec& arm : spec.arms) {
        if (arm.sweep)
            runs += round == 1 ? std::size_t(estimatedRuns(arm)) : 0;
        else
            runs += arm.repeats >= round ? 1 : 0;
    }
    return runs;
}

std::optional<ArmPlan::Step> ArmPlan::stepAt(std::size_t index) const
{
    if (!m_arm.sweep)
        return index == 0 ? std::optional<Step>(Step { QString(), std::nullopt }) : std::nullopt;
    const SweepSpec& sweep = *m_arm.sweep;
    if (!sweep.autoRates) {
        if (index >= sweep.values.size())
            return std::nullopt;
        return Step { overName(sweep), sweep.values[index] };
    }
    if (index == 0)
        return Step { QStringLiteral("synchronous"), std::nullopt };
    if (index == 1)
        return Step { QStringLiteral("throughput"), std::nullopt };
    if (index - 2 >= m_autoRates.size())
        return std::nullopt;
    return Step { QStringLiteral("rate"), m_autoRates[index - 2] };
}

std::optional<PlannedStep> ArmPlan::next()
{
    if (m_done)
        return std::nullopt;
    const bool oneRound = m_round > 0 && !m_arm.sweep;
    if (oneRound) { // this round's repeat alone
        if (m_current) {
            m_done = true;
            return std::nullopt;
        }
        m_current = stepAt(0);
        m_repeat = m_round - 1;
    } else if (!m_current || m_repeat >= m_arm.repeats) {
        if (m_current)
            ++m_step;
        m_repeat = 0;
        m_valuePassed = true;
        m_current = stepAt(m_step);
        if (!m_current) {
            m_done = true;
            return std::nullopt;
        }
    }
    ++m_repeat;
    ArmSpec arm = m_arm;
    QString valueText;
    const QString& kind = m_current->kind;
    if (kind == QLatin1String("rate")) {
        arm.mode = LoadSpec::Mode::Rate;
        arm.rate = *m_current->value;
        valueText = sweepValueText(arm.rate);
    } else if (kind == QLatin1String("concurrency")) {
        arm.mode = LoadSpec::Mode::Concurrency;
        arm.concurrency = int(*m_current->value);
        valueText = sweepValueText(arm.concurrency);
    } else if (kind == QLatin1String("synchronous")) {
        arm.mode = LoadSpec::Mode::Concurrency;
        arm.concurrency = 1;
        valueText = QStringLiteral("sync");
    } else if (kind == QLatin1String("throughput")) {
        arm.mode = LoadSpec::Mode::Concurrency;
        arm.concurrency = m_arm.sweep->throughputConcurrency;
        valueText = QStringLiteral("max");
    }
    PlannedStep step;
    RunId id;
    id.arm = m_arm.name;
    if (m_arm.sweep)
        id.step = valueText;
    step.armName = id.toString();
    step.load = m_spec.loadSpec(m_config, arm);
    // Every run of the arm gets prompts of its own: the same prompts again would
    // hit the server's prefix cache and make later steps and repeats look faster.
    step.load.seed += quint64(m_step) * quint64(m_arm.repeats) + quint64(m_repeat - 1);
    if (m_arm.sweep || m_repeat > 1) { // a plain run keeps loadSpec()'s name
        id.config = m_config.label;
        id.repeat = m_repeat;
        step.load.runLabel = id.toString();
    }
    if (m_arm.sweep)
        step.runFields["sweep"]
            = { { "arm", m_arm.name.toStdString() }, { "over", overName(*m_arm.sweep).toStdString() },
                  { "value", m_current->value ? nlohmann::json(*m_current->value) : nlohmann::json(nullptr) },
                  { "step", kind.toStdString() } };
    if (m_arm.repeats > 1)
        step.runFields["repeat"] = m_repeat;
    if (oneRound && m_arm.repeats > 1)
        step.runFields["round"] = m_repeat;
    return step;
}

void ArmPlan::stepFinished(nlohmann::json& summary)
{
    if (!m_current)
        return;
    if (m_arm.repeats > 1)
        summary["repeat"] = m_repeat;
    if (m_round > 0 && !m_arm.sweep && m_arm.repeats > 1)
        summary["round"] = m_repeat;
    if (!m_arm.sweep)
        return;
    const SweepSpec& sweep = *m_arm.sweep;
    const QString& kind = m_current->kind;
    summary["sweep"] = { { "arm", m_arm.name.toStdString() }, { "over", overName(sweep).toStdString() },
        { "value", m_current->value ? nlohmann::json(*m_current->value) : nlohmann::json(nullptr) },
        { "step", kind.toStdString() } };
    auto stop = [&](const QString& reason) {
        m_stopReason = reason;
        m_done = true;
        summary["sweep"]["stop"] = reason.toStdString();
    };
    if (kind == QLatin1String("synchronous")) {
        if (m_repeat == 1)
            m_syncRate = achievedRate(summary);
        return;
    }
    if (kind == QLatin1String("throughput")) {
        if (m_repeat > 1)
            return;
        const double ceiling = achievedRate(summary);
        if (!(m_syncRate > 0) || !(ceiling > m_syncRate)) {
            stop(QStringLiteral("the throughput step (%1 req/s) was not faster than the synchronous one (%2 req/s): "
                                "no rates between them to sweep")
                     .arg(ceiling, 0, 'f', 2)
                     .arg(m_syncRate, 0, 'f', 2));
            return;
        }
        for (int i = 1; i <= sweep.steps; ++i) {
            const double rate = m_syncRate + (ceiling - m_syncRate) * i / sweep.steps;
            const double rounded = QString::number(rate, 'g', 3).toDouble(); // readable run names
            if (m_autoRates.empty() || rounded > m_autoRates.back())
                m_autoRates.push_back(rounded);
        }
        return;
    }
    const QString where = QStringLiteral("%1 %2").arg(sweepValueText(*m_current->value),
        kind == QLatin1String("rate") ? QStringLiteral("req/s") : QStringLiteral("in flight"));
    const StepVerdict verdict = judgeStep(summary, m_spec.slo, kind == QLatin1String("rate"));
    m_valuePassed = m_valuePassed && verdict.passes();
    if (!verdict.keptUp) {
        stop(QStringLiteral("at %1 the server fell behind: %2").arg(where, verdict.rateProblem));
        return;
    }
    if (m_repeat < m_arm.repeats)
        return; // a value is judged once all its repeats are in
    m_failedInARow = m_valuePassed ? 0 : m_failedInARow + 1;
    if (m_failedInARow >= kSweepFailuresToStop)
        stop(QStringLiteral("two steps in a row broke the SLO (at %1: %2)").arg(where, verdict.sloProblem));
}

} // namespace ks
