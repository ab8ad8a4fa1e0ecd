#include "source/runsnapshotter.h"

namespace ks {

void RunSnapshotter::setProbeSet(const nlohmann::json& identity)
{
    m_drift.setSetIdentity(identity);
    m_hasProbes = true;
}

void RunSnapshotter::beginRun(const QString& run, const QString& config, const QString& model, int probeRestart)
{
    m_aggregator = std::make_unique<Aggregator>();
    m_run = run;
    m_config = config;
    m_model = model;
    m_probeRestart = probeRestart;
    m_running = m_waiting = m_kvCacheUsage = -1;
    m_gpu = {};
    m_firstSpec.reset();
    m_lastSpec.reset();
    m_dirty = false;
}

void RunSnapshotter::addRecords(const QVector<RequestRecord>& records)
{
    if (!m_aggregator || records.isEmpty())
        return;
    for (const RequestRecord& r : records)
        if (r.run == m_run)
            m_aggregator->add(r);
    if (m_probeRestart >= 0)
        m_drift.add(m_config, m_model, m_probeRestart, records);
    m_dirty = true;
}

void RunSnapshotter::addServerSample(double running, double waiting, double kvCacheUsage)
{
    m_running = running;
    m_waiting = waiting;
    m_kvCacheUsage = kvCacheUsage;
    m_dirty = true; // queue depth moves even while nothing completes
}

void RunSnapshotter::addSpecDecode(const SpecDecodeCounters& counters)
{
    if (!m_firstSpec)
        m_firstSpec = counters;
    m_lastSpec = counters;
    m_dirty = true;
}

void RunSnapshotter::addGpuSample(const GpuGauges& gauges)
{
    m_gpu = gauges;
    m_dirty = true;
}

RunSnapshot RunSnapshotter::snapshot(qint64 runTimeUs)
{
    m_dirty = false;
    RunSnapshot s = m_aggregator->snapshot(runTimeUs);
    s.serverRunning = m_running;
    s.serverWaiting = m_waiting;
    s.kvCacheUsage = m_kvCacheUsage;
    s.gpu = m_gpu;
    if (m_firstSpec) {
        s.specAcceptance = specAcceptance(*m_firstSpec, *m_lastSpec);
        s.specMeanAccepted = specMeanAccepted(*m_firstSpec, *m_lastSpec);
        if (s.specMeanAccepted < 0 && m_lastSpec->acceptLength)
            s.specMeanAccepted = *m_lastSpec->acceptLength;
    }
    if (m_hasProbes) {
        s.probeOutputs = m_drift.outputs();
        s.driftMismatches = m_drift.mismatches();
    }
    return s;
}

} // namespace ks
