#pragma once

#include "batchengine.h"

#include <QObject>
#include <QTimer>

namespace kssim {

/// Drives a BatchEngine in real time: a step planned at time T delivers its
/// tokens at T + duration, and the next step starts at that planned instant
/// (not when the timer happened to fire), so timer jitter never accumulates.
class EngineLoop : public QObject {
    Q_OBJECT
public:
    explicit EngineLoop(EngineConfig config, QObject* parent = nullptr);

    void submit(const SequenceSpec& spec, std::vector<std::uint64_t> blocks = {});
    void cancel(std::uint64_t id);
    const BatchEngine& engine() const { return m_engine; }

signals:
    /// Direct connections only: `outcome` lives for the duration of the call.
    void stepFinished(const kssim::StepOutcome& outcome, qint64 startUs, qint64 endUs);

private:
    void beginStep(std::int64_t startUs);
    void onTimer();

    BatchEngine m_engine;
    QTimer m_timer;
    bool m_stepping = false;
    StepOutcome m_pending;
    std::int64_t m_stepStartUs = 0;
    std::int64_t m_stepEndUs = 0;
};

} // namespace kssim
