// Live control of a running arm (docs/experiments.md, "Steering"): each new
// concurrency is a segment, a run of its own in the file, summarized like the
// step of a sweep over concurrency so compare and the knee chart group them.
#include "run/experimentrunner.h"

#include "util/monotonicclock.h"

#include <algorithm>

namespace ks {

namespace {

nlohmann::json steeredSweep(const QString& baseArm, int concurrency)
{
    return { { "arm", (baseArm + QStringLiteral(" (steered)")).toStdString() }, { "over", "concurrency" },
        { "value", concurrency }, { "step", "concurrency" } };
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

QString ExperimentRunner::steer(int concurrency)
{
    if (!m_armRunning || !m_load || m_stopRequested)
        return tr("no arm is running");
    if (m_probeRestart >= 0)
        return tr("a probe pass runs at its own concurrency");
    if (m_load->spec().mode != LoadSpec::Mode::Concurrency)
        return tr("only a concurrency arm can be steered (this one sends at a rate)");
    if (!m_runFields.empty())
        return tr("a sweep step or a repeat follows its own plan: steer a plain arm");
    if (concurrency == m_concurrencyNow)
        return {};
    const ConfigSpec& config = m_spec.configs[m_config];
    const QString baseArm = m_segments.empty() ? m_armName : m_segments.front().arm;
    const QString baseRun = m_segments.empty() ? m_run : m_segments.front().run; // CONFIG/ARM, or an ad-hoc run's label
    const QString armName = QStringLiteral("%1~c%2").arg(baseArm).arg(concurrency);
    const QString segmentRun = QStringLiteral("%1~c%2").arg(baseRun).arg(concurrency);
    QString run = segmentRun;
    int repeat = 1; // the same setting again: a repeat of its segment
    auto taken = [this](const QString& name) {
        return name == m_run
            || std::any_of(m_segments.begin(), m_segments.end(), [&](const Segment& s) { return s.run == name; });
    };
    while (taken(run))
        run = segmentRun + QStringLiteral("#%1").arg(++repeat);
    if (const QString refused = m_load->steer(concurrency, run); !refused.isEmpty())
        return refused;

    const qint64 nowUs = monotonicUs() - m_t0Us;
    if (m_snapshots.inRun())
        takeSnapshot(); // the last point of the segment that ends
    const bool first = m_segments.empty();
    endSegment();
    if (first) // the arm as it started is the first step
        m_segments.back().sweep = steeredSweep(baseArm, m_concurrencyNow);
    nlohmann::json line = m_segments.back().runLine;
    line["run"] = run.toStdString();
    line["arm"] = armName.toStdString();
    line["control"]
        = { { "kind", "concurrency" }, { "value", concurrency }, { "from", m_concurrencyNow }, { "t_us", nowUs } };
    line["sweep"] = steeredSweep(baseArm, concurrency);
    if (repeat > 1)
        line["repeat"] = repeat;
    else
        line.erase("repeat");
    m_writer.write(line);
    flushFile();
    m_runLine = std::move(line);
    m_run = run;
    m_armName = armName;
    m_concurrencyNow = concurrency;
    m_snapshots.beginRun(m_run, config.label, config.model, -1);
    emit armStarted(
        m_run, int(m_config * runsPerConfig()) + m_runInConfig - 1, int(m_spec.configs.size() * runsPerConfig()));
    return {};
}

} // namespace ks
