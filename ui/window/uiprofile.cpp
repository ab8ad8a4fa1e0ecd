#include "uiprofile.h"

#include <QThread>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>

namespace ks::uiprofile {

namespace {

struct State {
    std::FILE* file = nullptr;
    QElapsedTimer clock;
    const char* pendingFrame = nullptr; ///< GUI thread only
};

State& state()
{
    static State s = [] {
        State init;
        const QByteArray path = qgetenv("KNOBSCOPE_PROFILE");
        if (!path.isEmpty())
            init.file = std::fopen(path.constData(), "w");
        if (!path.isEmpty() && !init.file)
            std::fprintf(stderr, "knobscope: KNOBSCOPE_PROFILE: cannot write %s\n", path.constData());
        init.clock.start();
        return init;
    }();
    return s;
}

} // namespace

bool enabled()
{
    return state().file != nullptr;
}

double sinceStartMs()
{
    return double(state().clock.nsecsElapsed()) / 1e6;
}

void write(const char* kind, const std::string& fields)
{
    State& s = state();
    if (!s.file)
        return;
    std::fprintf(
        s.file, "{\"kind\":\"%s\",\"t\":%.3f%s%s}\n", kind, sinceStartMs(), fields.empty() ? "" : ",", fields.c_str());
    std::fflush(s.file);
}

void markNextFrame(const char* what)
{
    if (enabled())
        state().pendingFrame = what;
}

qint64 threadCpuNs()
{
    timespec now {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

ArmEndTimer::ArmEndTimer(const char* part, int arm)
    : m_part(part)
    , m_arm(arm)
{
    if (!enabled())
        return;
    m_timer.start();
    m_cpuStartNs = threadCpuNs();
}

ArmEndTimer::~ArmEndTimer()
{
    if (!m_timer.isValid())
        return;
    char fields[200];
    std::snprintf(fields, sizeof fields, "\"part\":\"%s\",\"arm\":%d,\"ms\":%.3f,\"cpu_ms\":%.3f", m_part, m_arm,
        double(m_timer.nsecsElapsed()) / 1e6, double(threadCpuNs() - m_cpuStartNs) / 1e6);
    write("arm_end", fields);
}

ProfiledApplication::ProfiledApplication(int& argc, char** argv)
    : QApplication(argc, argv)
{
    m_clock.start();
    // What the hook adds to each event: two clock reads and a thread check.
    constexpr int kCalls = 100000;
    QElapsedTimer probe;
    probe.start();
    qint64 sink = 0;
    for (int i = 0; i < kCalls; ++i)
        sink += m_clock.nsecsElapsed() + (QThread::currentThread() == thread() ? 1 : 0);
    const double perEventNs = double(probe.nsecsElapsed()) / kCalls * 2.0;
    write("overhead", "\"ns_per_event\":" + std::to_string(perEventNs) + ",\"sink\":" + std::to_string(sink % 2));
    m_windowStartNs = m_clock.nsecsElapsed();
    m_windowCpuNs = threadCpuNs();
}

bool ProfiledApplication::notify(QObject* receiver, QEvent* event)
{
    if (QThread::currentThread() != thread())
        return QApplication::notify(receiver, event);
    if (m_depth > 0) {
        if (event->type() == QEvent::Paint)
            m_painted = true;
        ++m_depth;
        const bool result = QApplication::notify(receiver, event);
        --m_depth;
        return result;
    }
    const qint64 start = m_clock.nsecsElapsed();
    m_depth = 1;
    m_painted = event->type() == QEvent::Paint;
    const bool result = QApplication::notify(receiver, event);
    m_depth = 0;
    const qint64 end = m_clock.nsecsElapsed();
    m_busyNs += end - start;
    m_longestNs = std::max(m_longestNs, end - start);
    ++m_events;
    State& s = state();
    if (m_painted && s.pendingFrame) {
        write("frame", std::string("\"what\":\"") + s.pendingFrame + "\"");
        s.pendingFrame = nullptr;
    }
    if (end - m_windowStartNs >= 1'000'000'000)
        flush(end);
    return result;
}

void ProfiledApplication::flush(qint64 nowNs)
{
    const qint64 cpuNs = threadCpuNs();
    char fields[240];
    std::snprintf(fields, sizeof fields,
        "\"wall_ms\":%.3f,\"busy_ms\":%.3f,\"cpu_ms\":%.3f,\"longest_ms\":%.3f,\"events\":%lld",
        double(nowNs - m_windowStartNs) / 1e6, double(m_busyNs) / 1e6, double(cpuNs - m_windowCpuNs) / 1e6,
        double(m_longestNs) / 1e6, static_cast<long long>(m_events));
    m_windowCpuNs = cpuNs;
    write("busy", fields);
    m_windowStartNs = nowNs;
    m_busyNs = m_longestNs = m_events = 0;
}

} // namespace ks::uiprofile
