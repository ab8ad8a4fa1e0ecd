#pragma once
// Profiling hooks for bench/ui_pipeline.py: how busy the GUI thread is, how
// long the main window takes over an arm's end, and how long a run file takes
// to show. Off unless KNOBSCOPE_PROFILE names a file; then each figure is one
// JSON line in it. When off, no hook measures or writes anything.

#include <QApplication>
#include <QElapsedTimer>

#include <string>

namespace ks::uiprofile {

/// True when KNOBSCOPE_PROFILE named a file that could be opened (checked once).
bool enabled();
/// Milliseconds since profiling began (the first call of enabled()).
double sinceStartMs();
/// Writes {"kind": KIND, "t": ms since start, FIELDS}; FIELDS is a JSON object's
/// members without braces ("\"arm\":3,\"ms\":1.25") or empty.
void write(const char* kind, const std::string& fields);
/// The next frame painted after this call writes {"kind": "frame", "what": WHAT}.
void markNextFrame(const char* what);
/// CPU time of the calling thread, in nanoseconds.
qint64 threadCpuNs();

/// Times a scope on the GUI thread as {"kind": "arm_end", "part": PART, "arm": ARM, "ms": ..., "cpu_ms": ...}
/// (wall time, and the thread's CPU time, which a busy machine does not inflate).
class ArmEndTimer {
public:
    ArmEndTimer(const char* part, int arm);
    ~ArmEndTimer();
    ArmEndTimer(const ArmEndTimer&) = delete;
    ArmEndTimer& operator=(const ArmEndTimer&) = delete;

private:
    const char* m_part;
    int m_arm;
    QElapsedTimer m_timer;
    qint64 m_cpuStartNs = 0;
};

/// The dashboard's QApplication when profiling: the time the GUI thread spends
/// handling events (outermost notify() calls only), one {"kind": "busy"} line
/// per second of wall time, with the GUI thread's CPU time in that second.
class ProfiledApplication : public QApplication {
public:
    ProfiledApplication(int& argc, char** argv);
    bool notify(QObject* receiver, QEvent* event) override;

private:
    void flush(qint64 nowNs);

    int m_depth = 0;
    QElapsedTimer m_clock;
    qint64 m_windowStartNs = 0;
    qint64 m_windowCpuNs = 0;
    qint64 m_busyNs = 0;
    qint64 m_longestNs = 0;
    qint64 m_events = 0;
    bool m_painted = false;
};

} // namespace ks::uiprofile
