#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace ks {

/// The schedule every telemetry sampler shares: a sample on a fixed interval,
/// one at a time, with the failures counted. A subclass says how one sample is
/// taken (sampleOnce()) and reports how it went: sampleSucceeded() before it
/// emits its own typed `sampled` signal, sampleFailed() for a passing failure
/// (retried at the next interval, or after a back-off), giveUp() for a
/// source that will not work (reported once through unavailable(), after which
/// the sampler stops). A failure streak that ends in a sample is a gap:
/// resumed() gives its length. Lives in the thread that starts it.
class PeriodicSampler : public QObject {
    Q_OBJECT
public:
    struct Schedule {
        int intervalMs = 1000;
        int timeoutMs = 2000; ///< how long one sample may take; the subclass enforces it
        /// Failed samples in a row after which the sampler gives up; 0: never.
        int giveUpAfterFailures = 0;
        /// Each failure in a row doubles the wait before the next sample, from
        /// the interval up to this; 0: no back-off, the next one at the interval.
        int maxBackOffMs = 0;
        /// The first sample from the event loop rather than inside start(), for
        /// a sample that can fail at once: then no signal comes from start().
        bool firstSampleFromEventLoop = false;
    };

    void setTimeoutMs(int ms) { m_schedule.timeoutMs = ms; }
    int timeoutMs() const { return m_schedule.timeoutMs; }
    /// Takes a sample now (or from the event loop, per the schedule) and then every interval.
    void start();
    /// Stops sampling; a sample in flight is dropped (cancelSample()).
    void stop();
    bool isActive() const { return m_timer.isActive(); }
    /// The wait before the next sample: the interval, or the back-off after failures.
    int currentIntervalMs() const { return m_timer.interval(); }
    /// Failed samples so far; a give-up is not one.
    int failures() const { return m_failures; }
    /// The longest time without a sample that ended in a sample (or in stop()), in ms.
    qint64 longestGapMs() const { return m_longestGapMs; }

signals:
    void unavailable(const QString& reason);
    void failed(const QString& reason);
    void resumed(qint64 gapMs);

protected:
    /// `t0Us`: the run's t0 on ks::monotonicUs(), which samples are stamped from.
    PeriodicSampler(qint64 t0Us, const Schedule& schedule, QObject* parent);

    /// Starts one sample; called only when none is in flight and the sampler
    /// is running. Its outcome comes back through sampleSucceeded(),
    /// sampleFailed() or giveUp(), from this call or later.
    virtual void sampleOnce() = 0;
    virtual bool sampleInFlight() const = 0;
    /// Drops the sample in flight, if any, without reporting it.
    virtual void cancelSample() = 0;
    /// What is sampled, for the give-up message after repeated failures.
    virtual QString source() const = 0;

    /// A sample came: ends a failure streak (resumed(), the interval again).
    /// Returns the moment, on ks::monotonicUs().
    qint64 sampleSucceeded();
    void sampleFailed(const QString& reason);
    void giveUp(const QString& reason);

    qint64 t0Us() const { return m_t0Us; }
    bool givenUp() const { return m_givenUp; }

private:
    void tick();

    Schedule m_schedule;
    qint64 m_t0Us;
    QTimer m_timer;
    bool m_givenUp = false;
    int m_consecutiveFailures = 0;
    int m_failures = 0;
    qint64 m_lastSampleUs = -1; ///< monotonic; the last sample, or start()
    qint64 m_gapStartUs = -1; ///< monotonic; when the current failure streak's gap began
    qint64 m_longestGapMs = 0;
};

} // namespace ks
