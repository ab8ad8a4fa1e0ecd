#include "engineloop.h"

#include "util/monotonicclock.h"

namespace kssim {

namespace {
// Past this much lateness the loop re-anchors to now instead of running steps
// back to back to catch up (the host was suspended or badly overloaded).
constexpr std::int64_t kMaxCatchUpUs = 20000;
} // namespace

EngineLoop::EngineLoop(EngineConfig config, QObject* parent)
    : QObject(parent)
    , m_engine(std::move(config))
{
    m_timer.setSingleShot(true);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &EngineLoop::onTimer);
}

void EngineLoop::submit(const SequenceSpec& spec, std::vector<std::uint64_t> blocks)
{
    m_engine.submit(spec, std::move(blocks));
    if (m_stepping)
        return;
    m_stepping = true;
    // Requests that arrive within the wake-up (and at least the same event-loop pass) join the first step.
    const int wakeMs = int((m_engine.config().idleWakeUs + 500) / 1000);
    QTimer::singleShot(wakeMs, Qt::PreciseTimer, this, [this] { beginStep(ks::monotonicUs()); });
}

void EngineLoop::cancel(std::uint64_t id)
{
    m_engine.cancel(id);
}

void EngineLoop::beginStep(std::int64_t startUs)
{
    m_pending = m_engine.step();
    m_stepStartUs = startUs;
    m_stepEndUs = startUs + m_pending.durationUs;
    const std::int64_t waitUs = m_stepEndUs - ks::monotonicUs();
    m_timer.start(int(std::max<std::int64_t>(0, (waitUs + 500) / 1000)));
}

void EngineLoop::onTimer()
{
    const StepOutcome outcome = std::move(m_pending);
    m_pending = {};
    emit stepFinished(outcome, m_stepStartUs, m_stepEndUs);
    if (m_engine.idle()) {
        m_stepping = false;
        return;
    }
    const std::int64_t now = ks::monotonicUs();
    beginStep(now - m_stepEndUs > kMaxCatchUpUs ? now : m_stepEndUs);
}

} // namespace kssim
