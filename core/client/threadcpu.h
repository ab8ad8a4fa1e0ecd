#pragma once

#include <vector>

namespace ks {

/// A kernel thread id (Linux `gettid`), the unit the load's CPU is measured in.
using ThreadId = int;

/// The calling thread's id, or 0 where the platform has none.
ThreadId currentThreadId();
/// Every thread of this process now, ascending (empty where unsupported).
std::vector<ThreadId> processThreadIds();
/// CPU time (user + system) one thread of this process has used, in seconds; -1
/// when it cannot be read (the thread ended, or the platform cannot say).
double threadCpuSeconds(ThreadId tid);

} // namespace ks
