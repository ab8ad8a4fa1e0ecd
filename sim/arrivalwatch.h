#pragma once

#include <QSocketNotifier>
#include <QtGlobal>

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace kssim {

class SimConnection;

/// Stamps a request's arrival with the kernel's receive time of its bytes, so
/// the truth log is right even when the simulator's single thread was busy
/// (an engine step's write pass takes milliseconds at a few hundred streams)
/// or not scheduled at all when they arrived.
///
/// The kernel stamps every received segment (SO_TIMESTAMPNS, CLOCK_REALTIME)
/// but hands the stamp only to a recvmsg() that asks for it, and Qt reads
/// sockets with read(). So every connection's socket also sits, edge-triggered,
/// in one epoll set, and whenever new bytes may be waiting the watch peeks at
/// the first unread one (MSG_PEEK) before Qt reads it: at the start of each
/// event-loop pass that has input (its notifier is registered before any
/// connection's), between the writes of a write pass, and between long pieces
/// of bookkeeping. The stamp is converted to CLOCK_MONOTONIC, the truth log's
/// clock, and never later than the moment the watch saw the bytes.
class ArrivalWatch {
public:
    ArrivalWatch();
    ~ArrivalWatch();
    ArrivalWatch(const ArrivalWatch&) = delete;
    ArrivalWatch& operator=(const ArrivalWatch&) = delete;

    /// Asks the kernel to timestamp what `fd` receives. On a listening socket
    /// this also keeps timestamping on for as long as it listens: the kernel
    /// switches it on for the whole host from a work queue, some time after the
    /// first socket asks, and off again when the last one closes, so a server
    /// whose connections each asked for themselves would lose the first
    /// segments after every quiet spell. Accepted sockets inherit the option.
    static bool enableReceiveTimestamps(qintptr fd);

    void add(SimConnection* connection, qintptr fd);
    /// Forgets `fd` if it is still registered to `connection` (the number may
    /// already belong to a newer socket when the old one was closed first).
    void remove(SimConnection* connection, qintptr fd);

    /// Stamps every registered connection that gained unread bytes since the last look.
    void poll();
    /// poll(), unless one ran less than the poll interval ago.
    void pollIfDue();

    /// Stamps given, and how many of them carried the kernel's receive time (for tests and diagnostics).
    quint64 stampsGiven() const { return m_stamps; }
    quint64 kernelStampsGiven() const { return m_kernelStamps; }

    static constexpr std::int64_t kPollIntervalUs = 50;

private:
    /// The receive time of `fd`'s first unread byte (capped at `nowUs`), or -1
    /// when nothing is unread (an edge for bytes Qt has read since).
    std::int64_t peekArrivalUs(int fd, std::int64_t nowUs);

    int m_epoll = -1;
    std::unique_ptr<QSocketNotifier> m_notifier;
    std::int64_t m_lastPollUs = 0;
    std::int64_t m_realtimeOffsetNs = 0; ///< CLOCK_REALTIME - CLOCK_MONOTONIC at m_offsetAtUs
    std::int64_t m_offsetAtUs = -1;
    quint64 m_stamps = 0;
    quint64 m_kernelStamps = 0;
    std::unordered_map<qintptr, SimConnection*> m_connections;
};

} // namespace kssim
