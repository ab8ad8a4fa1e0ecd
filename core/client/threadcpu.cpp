#include "client/threadcpu.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>

#if defined(__linux__)
#include <QByteArray>
#include <QFile>

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ks {

#if defined(__linux__)

ThreadId currentThreadId()
{
    return ThreadId(syscall(SYS_gettid));
}

std::vector<ThreadId> processThreadIds()
{
    std::vector<ThreadId> out;
    DIR* dir = opendir("/proc/self/task");
    if (!dir)
        return out;
    while (const dirent* entry = readdir(dir)) {
        const int tid = std::atoi(entry->d_name);
        if (tid > 0)
            out.push_back(tid);
    }
    closedir(dir);
    std::sort(out.begin(), out.end());
    return out;
}

double threadCpuSeconds(ThreadId tid)
{
    // The kernel's CPU clock of one thread, encoded as glibc's pthread_getcpuclockid()
    // encodes it (per-thread, scheduler time: ~tid << 3 | 6). It reads any thread of
    // this process to the nanosecond, including threads Qt started (a QNAM's HTTP thread),
    // for which there is no pthread_t to ask.
    const clockid_t clock = clockid_t((~unsigned(tid) << 3) | 6u);
    timespec ts {};
    if (clock_gettime(clock, &ts) == 0)
        return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
    // Fallback: the scheduler's run time in nanoseconds, first field of schedstat.
    QFile file(QStringLiteral("/proc/self/task/%1/schedstat").arg(tid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    bool ok = false;
    const qlonglong ns = file.readLine().split(' ').value(0).toLongLong(&ok);
    return ok ? double(ns) / 1e9 : -1;
}

#else

ThreadId currentThreadId()
{
    return 0;
}

std::vector<ThreadId> processThreadIds()
{
    return {};
}

double threadCpuSeconds(ThreadId)
{
    return -1;
}

#endif

} // namespace ks
