#include "experiment/armsteering.h"

#include "experiment/armplan.h"
#include "store/runid.h"

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

nlohmann::json steeredSweep(const QString& baseArm, const char* over, const nlohmann::json& value)
{
    return { { "arm", (baseArm + QStringLiteral(" (steered)")).toStdString() }, { "over", over }, { "value", value },
        { "step", over } };
}

} // namespace

void ArmSteering::beginArm(const LoadSpec& load)
{
    m_concurrency = load.mode == LoadSpec::Mode::Concurrency ? load.concurrency : 0;
    m_rate = load.mode == LoadSpec::Mode::Rate ? load.rate : 0;
}

QString ArmSteering::whyNot(const ArmState& state, LoadSpec::Mode mode) const
{
    if (!state.running || !state.load || state.stopping)
        return tr("no arm is running");
    if (state.probePass)
        return tr("a probe pass runs at its own concurrency");
    if (state.load->spec().mode != mode)
        return mode == LoadSpec::Mode::Concurrency
            ? tr("this arm sends at a rate: steer it with a rate (rate R), not a concurrency")
            : tr("this arm keeps a number of streams open: steer it with a concurrency (concurrency N), not a rate");
    if (state.planned)
        return tr("a sweep step or a repeat follows its own plan: steer a plain arm");
    return {};
}

std::optional<ArmSteering::Change> ArmSteering::steer(
    int concurrency, const ArmState& state, const QString& run, const QString& arm, QString* refusal)
{
    *refusal = whyNot(state, LoadSpec::Mode::Concurrency);
    if (!refusal->isEmpty())
        return std::nullopt;
    if (concurrency == m_concurrency)
        return std::nullopt;
    Change change = namesFor(QStringLiteral("c%1").arg(concurrency), run, arm);
    *refusal = state.load->steer(concurrency, change.run);
    if (!refusal->isEmpty())
        return std::nullopt;
    change.value = concurrency;
    change.from = m_concurrency;
    m_concurrency = concurrency;
    return change;
}

std::optional<ArmSteering::Change> ArmSteering::steerRate(
    double rate, const ArmState& state, const QString& run, const QString& arm, QString* refusal)
{
    *refusal = whyNot(state, LoadSpec::Mode::Rate);
    if (!refusal->isEmpty())
        return std::nullopt;
    if (!(rate > 0) || !std::isfinite(rate)) {
        *refusal = tr("the rate must be a number of requests per second above 0");
        return std::nullopt;
    }
    if (rate == m_rate)
        return std::nullopt;
    Change change = namesFor(QLatin1Char('r') + sweepValueText(rate), run, arm);
    *refusal = state.load->steerRate(rate, change.run);
    if (!refusal->isEmpty())
        return std::nullopt;
    change.kind = "rate";
    change.value = rate;
    change.from = m_rate;
    m_rate = rate;
    return change;
}

ArmSteering::Change ArmSteering::namesFor(const QString& setting, const QString& run, const QString& arm) const
{
    const QString baseArm = m_segments.empty() ? arm : m_segments.front().arm;
    const QString baseRun = m_segments.empty() ? run : m_segments.front().run; // CONFIG/ARM, or an ad-hoc run's label
    RunId armId = RunId::parse(baseArm), runId = RunId::parse(baseRun);
    armId.segment = runId.segment = setting;
    Change change;
    change.arm = armId.toString();
    change.run = runId.toString();
    auto taken = [&](const QString& name) {
        return name == run
            || std::any_of(m_segments.begin(), m_segments.end(), [&](const Segment& s) { return s.run == name; });
    };
    while (taken(change.run)) {
        runId.segment = setting + QLatin1Char('#') + QString::number(++change.repeat);
        change.run = runId.toString();
    }
    return change;
}

void ArmSteering::endSegment(QString run, QString arm, nlohmann::json runLine, ServerTally server, nlohmann::json gpu)
{
    Segment segment { std::move(run), std::move(arm), std::move(runLine), std::move(server), std::move(gpu), {}, {} };
    if (!segment.runLine.is_null()) {
        segment.sweep = segment.runLine.value("sweep", nlohmann::json());
        segment.control = segment.runLine.value("control", nlohmann::json());
    }
    m_segments.push_back(std::move(segment));
}

std::vector<std::vector<RequestRecord>> ArmSteering::splitBySegment(
    std::vector<RequestRecord> records, const std::vector<Segment>& segments)
{
    std::vector<std::vector<RequestRecord>> out(segments.size());
    if (segments.size() == 1) {
        out.front() = std::move(records);
        return out;
    }
    for (RequestRecord& r : records)
        for (std::size_t i = 0; i < segments.size(); ++i)
            if (r.run == segments[i].run) {
                out[i].push_back(std::move(r));
                break;
            }
    return out;
}

nlohmann::json ArmSteering::startLine(const Change& change, qint64 tUs)
{
    const QString baseArm = m_segments.front().arm;
    if (m_segments.size() == 1) // the arm as it started is the first step
        m_segments.front().sweep = steeredSweep(baseArm, change.kind, change.from);
    nlohmann::json line = m_segments.back().runLine;
    line["run"] = change.run.toStdString();
    line["arm"] = change.arm.toStdString();
    line["control"] = { { "kind", change.kind }, { "value", change.value }, { "from", change.from }, { "t_us", tUs } };
    if (std::string(change.kind) == "rate")
        line["control"]["rate"] = change.value; // the field docs/formats.md names, beside the generic pair
    line["sweep"] = steeredSweep(baseArm, change.kind, change.value);
    if (change.repeat > 1)
        line["repeat"] = change.repeat;
    else
        line.erase("repeat");
    return line;
}

} // namespace ks
