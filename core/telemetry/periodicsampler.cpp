#include "telemetry/periodicsampler.h"

#include "util/monotonicclock.h"

#include <algorithm>

namespace ks {

PeriodicSampler::PeriodicSampler(qint64 t0Us, const Schedule& schedule, QObject* parent)
    : QObject(parent)
    , m_schedule(schedule)
    , m_t0Us(t0Us)
    , m_timer(this)
{
    m_timer.setInterval(schedule.intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &PeriodicSampler::tick);
}

void PeriodicSampler::start()
{
    m_givenUp = false;
    m_consecutiveFailures = 0;
    m_lastSampleUs = monotonicUs();
    m_timer.setInterval(m_schedule.intervalMs);
    m_timer.start();
    if (m_schedule.firstSampleFromEventLoop)
        QTimer::singleShot(0, this, &PeriodicSampler::tick);
    else
        tick();
}

void PeriodicSampler::stop()
{
    if (m_consecutiveFailures > 0) // a gap still open at the end counts too
        m_longestGapMs = std::max(m_longestGapMs, (monotonicUs() - m_gapStartUs) / 1000);
    m_timer.stop();
    cancelSample();
}

void PeriodicSampler::tick()
{
    if (sampleInFlight() || m_givenUp || !m_timer.isActive())
        return; // one at a time: a slow source is sampled less often, never piled up
    sampleOnce();
}

qint64 PeriodicSampler::sampleSucceeded()
{
    const qint64 now = monotonicUs();
    if (m_consecutiveFailures > 0) {
        const qint64 gapMs = (now - m_gapStartUs) / 1000;
        m_longestGapMs = std::max(m_longestGapMs, gapMs);
        m_consecutiveFailures = 0;
        if (m_schedule.maxBackOffMs > 0)
            m_timer.setInterval(m_schedule.intervalMs);
        emit resumed(gapMs);
    }
    m_lastSampleUs = now;
    return now;
}

void PeriodicSampler::sampleFailed(const QString& reason)
{
    if (m_consecutiveFailures++ == 0)
        m_gapStartUs = m_lastSampleUs; // the gap runs from the last sample (or the start)
    ++m_failures;
    if (m_schedule.maxBackOffMs > 0) {
        // Back off: a source too busy to answer is not helped by more requests.
        const qint64 backOff = std::min<qint64>(
            qint64(m_schedule.intervalMs) << std::min(m_consecutiveFailures, 16), m_schedule.maxBackOffMs);
        m_timer.setInterval(int(std::max<qint64>(backOff, m_schedule.intervalMs)));
        m_timer.start();
    }
    emit failed(reason);
    // A source that fails every time the same way (a driver not loaded) is
    // not worth a request an interval for the rest of the measurement.
    if (m_schedule.giveUpAfterFailures > 0 && m_consecutiveFailures >= m_schedule.giveUpAfterFailures)
        giveUp(QStringLiteral("%1 failed %2 times in a row; the last: %3")
                   .arg(source(), QString::number(m_consecutiveFailures), reason));
}

void PeriodicSampler::giveUp(const QString& reason)
{
    m_givenUp = true;
    m_timer.stop();
    cancelSample();
    emit unavailable(reason);
}

} // namespace ks
