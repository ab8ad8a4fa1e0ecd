#include "run/replayfeed.h"

#include <nlohmann/json.hpp>

namespace ks {

ReplayFeed::ReplayFeed(QString path, double speed, QObject* parent)
    : QObject(parent)
    , m_replay(std::move(path), speed)
    , m_speed(speed)
{
    qRegisterMetaType<RunSnapshot>();
    qRegisterMetaType<LoadProgress>();
    connect(&m_replay, &RunSource::runStarted, this, &ReplayFeed::onRunStarted);
    connect(&m_replay, &RunSource::recordsReady, this, &ReplayFeed::onRecords);
    connect(&m_replay, &RunSource::serverSampled, this,
        [this](const QString& run, qint64, double running, double waiting, double kv) {
            if (run != m_run)
                return;
            m_lastRunning = running;
            m_lastWaiting = waiting;
            m_lastKv = kv;
        });
    connect(&m_replay, &RunSource::runFinished, this, [this](const QString& run, const QByteArray& summary) {
        if (run == m_run)
            endRun();
        // The stored summary, without its "type", is what the live run sent.
        nlohmann::json j = nlohmann::json::parse(summary.toStdString(), nullptr, false);
        if (j.is_object())
            j.erase("type");
        emit runFinished(run, QByteArray::fromStdString(j.dump()));
    });
    connect(&m_replay, &RunSource::serverEventRead, this,
        [this](const QString&, const QString& event, const QString& detail) {
            emit serverLine(
                event == QLatin1String("output") ? detail : QStringLiteral("[server %1] %2").arg(event, detail));
        });
    connect(&m_replay, &RunSource::issueFound, this, [this](qint64 line, const QString& message) {
        m_issues << QStringLiteral("line %1: %2").arg(line).arg(message);
        emit issueFound(line, message);
    });
    connect(&m_replay, &RunSource::finished, this, [this] {
        endRun();
        emit finished(m_issues.join(QLatin1Char('\n')));
    });
}

void ReplayFeed::start()
{
    m_replay.start();
}

void ReplayFeed::stop()
{
    m_replay.stop();
}

void ReplayFeed::setPaused(bool paused)
{
    m_replay.setPaused(paused);
}

void ReplayFeed::setSpeed(double speed)
{
    m_speed = speed;
    if (m_fastUntil < 0)
        m_replay.setSpeed(speed);
}

void ReplayFeed::fastForwardTo(qint64 bytes)
{
    m_fastUntil = bytes;
    m_replay.setSpeed(0);
}

void ReplayFeed::onRunStarted(const RunInfo& info)
{
    endRun();
    m_run = info.run;
    m_config = info.config;
    m_model = info.model;
    m_aggregator = std::make_unique<Aggregator>();
    m_runTimeUs = 0;
    m_nextSnapshotUs = 0;
    m_progress = {};
    m_lastRunning = m_lastWaiting = m_lastKv = -1;
    const nlohmann::json line = nlohmann::json::parse(info.json.toStdString(), nullptr, false);
    m_probeRestart = -1;
    if (line.is_object() && line.contains("probes") && line["probes"].is_object()) {
        m_probeRestart = line["probes"].value("restart", 0);
        m_progress.expected = line["probes"].value("count", 0) * line["probes"].value("repeats", 1);
        if (m_drift.empty())
            m_drift.setSetIdentity(line["probes"]);
    }
    emit runStarted(m_run, ++m_runIndex, 0);
}

void ReplayFeed::onRecords(const QVector<RequestRecord>& records)
{
    if (!m_aggregator)
        return;
    // A fast replay hands over a whole run in one batch: snapshots are still
    // taken on the run's own clock, record by record, so the charts fill as
    // densely as they did live.
    const qint64 cadenceUs = m_replay.speed() > 0 ? 100'000 : 500'000;
    int probesFrom = 0;
    for (int i = 0; i < records.size(); ++i) {
        const RequestRecord& r = records[i];
        const qint64 endUs = r.tSendUs + std::max<qint64>(0, r.e2eUs);
        if (endUs >= m_nextSnapshotUs && m_progress.done > 0) {
            if (m_probeRestart >= 0) // drift so far, up to this record
                m_drift.add(m_config, m_model, m_probeRestart, records.mid(probesFrom, i - probesFrom));
            probesFrom = i;
            emitSnapshot();
            m_nextSnapshotUs = (m_runTimeUs / cadenceUs + 1) * cadenceUs;
        }
        m_aggregator->add(r);
        m_runTimeUs = std::max(m_runTimeUs, endUs);
        ++m_progress.done;
        (r.ok ? m_progress.ok : m_progress.errors) += 1;
    }
    if (m_probeRestart >= 0)
        m_drift.add(m_config, m_model, m_probeRestart, records.mid(probesFrom));
    m_progress.elapsedS = double(m_runTimeUs) / 1e6;
    emit progressed(m_progress);
    if (m_runTimeUs >= m_nextSnapshotUs) {
        emitSnapshot();
        m_nextSnapshotUs = (m_runTimeUs / cadenceUs + 1) * cadenceUs;
    }
    if (m_fastUntil >= 0 && m_replay.bytesRead() >= m_fastUntil) {
        m_fastUntil = -1;
        m_replay.setSpeed(m_speed);
    }
}

void ReplayFeed::emitSnapshot()
{
    RunSnapshot s = m_aggregator->snapshot(m_runTimeUs);
    s.serverRunning = m_lastRunning;
    s.serverWaiting = m_lastWaiting;
    s.kvCacheUsage = m_lastKv;
    if (!m_drift.empty()) {
        s.probeOutputs = m_drift.outputs();
        s.driftMismatches = m_drift.mismatches();
    }
    emit snapshotReady(m_run, s);
}

void ReplayFeed::endRun()
{
    if (!m_aggregator)
        return;
    emitSnapshot(); // the run's final state, as the live run's last snapshot
    m_aggregator.reset();
}

} // namespace ks
