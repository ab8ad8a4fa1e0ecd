// Live control of a running arm (docs/experiments.md, "Steering"): each new
// concurrency or rate is a segment, a run of its own in the file, summarized
// like the step of a sweep over that setting so compare and the knee chart
// group them.
#include "experiment/experimentrunner.h"

#include "store/runid.h"
#include "util/monotonicclock.h"

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

void ExperimentRunner::endSegment()
{
    Segment segment { m_run, m_armName, std::exchange(m_runLine, nlohmann::json()), std::exchange(m_serverTally, {}),
        m_gpu.takeSummary(), {}, {} };
    if (!segment.runLine.is_null()) {
        segment.sweep = segment.runLine.value("sweep", nlohmann::json());
        segment.control = segment.runLine.value("control", nlohmann::json());
    }
    m_segments.push_back(std::move(segment));
}

void ExperimentRunner::finishArmGently()
{
    m_stopRequested = true; // no arm after this one
    if (m_load && m_armRunning)
        m_load->drain();
    else
        stop();
}

QString ExperimentRunner::whyNotSteerable(LoadSpec::Mode mode) const
{
    if (!m_armRunning || !m_load || m_stopRequested)
        return tr("no arm is running");
    if (m_probeRestart >= 0)
        return tr("a probe pass runs at its own concurrency");
    if (m_load->spec().mode != mode)
        return mode == LoadSpec::Mode::Concurrency
            ? tr("this arm sends at a rate: steer it with a rate (rate R), not a concurrency")
            : tr("this arm keeps a number of streams open: steer it with a concurrency (concurrency N), not a rate");
    if (!m_runFields.empty())
        return tr("a sweep step or a repeat follows its own plan: steer a plain arm");
    return {};
}

QString ExperimentRunner::steer(int concurrency)
{
    if (const QString why = whyNotSteerable(LoadSpec::Mode::Concurrency); !why.isEmpty())
        return why;
    if (concurrency == m_concurrencyNow)
        return {};
    const QString refused = startSegment(QStringLiteral("c%1").arg(concurrency), "concurrency", concurrency,
        m_concurrencyNow, [&](const QString& run) { return m_load->steer(concurrency, run); });
    if (refused.isEmpty())
        m_concurrencyNow = concurrency;
    return refused;
}

QString ExperimentRunner::steerRate(double rate)
{
    if (const QString why = whyNotSteerable(LoadSpec::Mode::Rate); !why.isEmpty())
        return why;
    if (!(rate > 0) || !std::isfinite(rate))
        return tr("the rate must be a number of requests per second above 0");
    if (rate == m_rateNow)
        return {};
    const QString refused = startSegment(QLatin1Char('r') + sweepValueText(rate), "rate", rate, m_rateNow,
        [&](const QString& run) { return m_load->steerRate(rate, run); });
    if (refused.isEmpty())
        m_rateNow = rate;
    return refused;
}

QString ExperimentRunner::startSegment(const QString& setting, const char* kind, const nlohmann::json& value,
    const nlohmann::json& from, const std::function<QString(const QString& run)>& apply)
{
    const ConfigSpec& config = m_spec.configs[m_config];
    const QString baseArm = m_segments.empty() ? m_armName : m_segments.front().arm;
    const QString baseRun = m_segments.empty() ? m_run : m_segments.front().run; // CONFIG/ARM, or an ad-hoc run's label
    RunId armId = RunId::parse(baseArm), runId = RunId::parse(baseRun);
    armId.segment = runId.segment = setting;
    const QString armName = armId.toString();
    QString run = runId.toString();
    int repeat = 1; // the same setting again: a repeat of its segment
    auto taken = [this](const QString& name) {
        return name == m_run
            || std::any_of(m_segments.begin(), m_segments.end(), [&](const Segment& s) { return s.run == name; });
    };
    while (taken(run)) {
        runId.segment = setting + QLatin1Char('#') + QString::number(++repeat);
        run = runId.toString();
    }
    if (const QString refused = apply(run); !refused.isEmpty())
        return refused;

    const qint64 nowUs = monotonicUs() - m_t0Us;
    if (m_snapshots.inRun())
        takeSnapshot(); // the last point of the segment that ends
    const bool first = m_segments.empty();
    endSegment();
    if (first) // the arm as it started is the first step
        m_segments.back().sweep = steeredSweep(baseArm, kind, from);
    nlohmann::json line = m_segments.back().runLine;
    line["run"] = run.toStdString();
    line["arm"] = armName.toStdString();
    line["control"] = { { "kind", kind }, { "value", value }, { "from", from }, { "t_us", nowUs } };
    if (std::string(kind) == "rate")
        line["control"]["rate"] = value; // the field docs/formats.md names, beside the generic pair
    line["sweep"] = steeredSweep(baseArm, kind, value);
    if (repeat > 1)
        line["repeat"] = repeat;
    else
        line.erase("repeat");
    m_writer.write(line);
    flushFile();
    m_runLine = std::move(line);
    m_run = run;
    m_armName = armName;
    m_snapshots.beginRun(m_run, config.label, config.model, -1);
    emit runStarted({ m_run, config.label, m_armName, config.model, m_schedule.runsBefore(m_visit) + m_runInConfig - 1,
        runTotal(), m_runLine });
    return {};
}

} // namespace ks
