#include "source/replayfeed.h"

#include <nlohmann/json.hpp>

namespace ks {

ReplayFeed::ReplayFeed(QString path, double speed, QObject* parent)
    : RunSource(parent)
    , m_replay(std::move(path), speed)
    , m_speed(speed)
{
    registerRunSourceTypes();
    connect(&m_replay, &JsonlReplay::runStarted, this, &ReplayFeed::onRunStarted);
    connect(&m_replay, &JsonlReplay::recordsReady, this, &ReplayFeed::onRecords);
    connect(&m_replay, &JsonlReplay::snapshotTaken, this, &ReplayFeed::onTick);
    connect(&m_replay, &JsonlReplay::experimentRead, this, [this](const ExperimentInfo& info) {
        if (info.hasProbes)
            m_snapshots.expectProbes(); // as the live run did from its start
        emit experimentStarted(info);
    });
    connect(&m_replay, &JsonlReplay::serverSampled, this,
        [this](const QString& run, qint64, double running, double waiting, double kv) {
            if (run == m_run)
                m_snapshots.addServerSample(running, waiting, kv);
        });
    connect(&m_replay, &JsonlReplay::specDecodeSampled, this, [this](const QString& run, const SpecDecodeCounters& c) {
        if (run == m_run)
            m_snapshots.addSpecDecode(c);
    });
    connect(&m_replay, &JsonlReplay::gpuSampled, this, [this](const QString& run, qint64, const GpuGauges& gauges) {
        if (run == m_run)
            m_snapshots.addGpuSample(gauges);
    });
    connect(&m_replay, &JsonlReplay::summaryRead, this, [this](const QString& run, const nlohmann::json& summary) {
        if (run == m_run)
            endRun();
        // The stored summary, without its "type", is what the live run sent.
        nlohmann::json j = summary;
        if (j.is_object())
            j.erase("type");
        emit runFinished(run, runSummaryFromJson(std::move(j)));
    });
    connect(&m_replay, &JsonlReplay::roundRead, this,
        [this](const nlohmann::json& line) { emit roundDecided(roundDecisionFromLine(line)); });
    connect(&m_replay, &JsonlReplay::searchProbeRead, this, &RunSource::searchProbed);
    connect(&m_replay, &JsonlReplay::searchRead, this, &RunSource::searchEnded);
    connect(&m_replay, &JsonlReplay::serverEventRead, this,
        [this](const QString&, const QString& event, const QString& detail) {
            emit serverLine(
                event == QLatin1String("output") ? detail : QStringLiteral("[server %1] %2").arg(event, detail));
        });
    connect(&m_replay, &JsonlReplay::issueFound, this, [this](qint64 line, const QString& message) {
        m_issues << QStringLiteral("line %1: %2").arg(line).arg(message);
        emit issueFound(line, message);
    });
    connect(&m_replay, &JsonlReplay::finished, this, [this] {
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

void ReplayFeed::discard()
{
    disconnect(this, nullptr, nullptr, nullptr);
    stop();
    deleteLater();
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
    m_runTimeUs = 0;
    m_nextSnapshotUs = 0;
    m_progress = {};
    const nlohmann::json& line = info.line;
    int probeRestart = -1;
    m_ticks = line.is_object() && line.value("ticks", false);
    if (line.is_object() && line.contains("probes") && line["probes"].is_object()) {
        probeRestart = line["probes"].value("restart", 0);
        m_progress.expected = line["probes"].value("count", 0) * line["probes"].value("repeats", 1);
        if (!m_snapshots.hasProbes())
            m_snapshots.setProbeSet(line["probes"]);
    }
    m_snapshots.beginRun(info.run, info.config, info.model, probeRestart);
    RunInfo started = info;
    started.index = ++m_runIndex;
    started.total = 0; // not known until the file ends
    emit runStarted(started);
}

void ReplayFeed::onRecords(const QVector<RequestRecord>& records)
{
    if (!m_snapshots.inRun())
        return;
    if (m_ticks) {
        m_snapshots.addRecords(records);
        for (const RequestRecord& r : records)
            m_runTimeUs = std::max(m_runTimeUs, r.tSendUs + std::max<qint64>(0, r.e2eUs));
    } else {
        // No ticks: snapshots on the run's own clock, record by record, at the
        // live cadence, even when a fast replay hands over a whole run at once.
        int from = 0;
        for (int i = 0; i < records.size(); ++i) {
            const RequestRecord& r = records[i];
            const qint64 endUs = r.tSendUs + std::max<qint64>(0, r.e2eUs);
            if (endUs >= m_nextSnapshotUs && m_progress.done + i > 0) {
                m_snapshots.addRecords(records.mid(from, i - from));
                from = i;
                emitSnapshot(m_runTimeUs);
                m_nextSnapshotUs = (m_runTimeUs / kSnapshotIntervalUs + 1) * kSnapshotIntervalUs;
            }
            m_runTimeUs = std::max(m_runTimeUs, endUs);
        }
        m_snapshots.addRecords(records.mid(from));
    }
    for (const RequestRecord& r : records) {
        ++m_progress.done;
        (r.ok ? m_progress.ok : m_progress.errors) += 1;
    }
    m_progress.elapsedS = double(m_runTimeUs) / 1e6;
    emit progressed(m_progress);
    if (!m_ticks && m_runTimeUs >= m_nextSnapshotUs) {
        emitSnapshot(m_runTimeUs);
        m_nextSnapshotUs = (m_runTimeUs / kSnapshotIntervalUs + 1) * kSnapshotIntervalUs;
    }
    if (m_fastUntil >= 0 && m_replay.bytesRead() >= m_fastUntil) {
        m_fastUntil = -1;
        m_replay.setSpeed(m_speed);
    }
}

void ReplayFeed::onTick(const QString& run, qint64 tUs)
{
    if (run == m_run && m_ticks && m_snapshots.inRun())
        emitSnapshot(tUs);
}

void ReplayFeed::emitSnapshot(qint64 runTimeUs)
{
    emit snapshotReady(m_run, m_snapshots.snapshot(runTimeUs));
}

void ReplayFeed::endRun()
{
    if (!m_snapshots.inRun())
        return;
    // The run's final state, as the live run's last snapshot. With ticks the
    // live run's last one is already in the file; one more only for what came
    // after it (a file cut short by a kill).
    if (!m_ticks || m_snapshots.dirty())
        emitSnapshot(m_runTimeUs);
    m_snapshots.endRun();
}

} // namespace ks
