#pragma once

#include <QtGlobal>

#include <cstdint>
#include <unordered_map>

namespace kssim {

class SimConnection;

/// Notices request bytes that reach a connection's socket while the simulator's
/// single thread is busy (an engine step's write pass takes milliseconds at a
/// few hundred streams), so a request's arrival is stamped when its bytes were
/// first seen unread in the kernel rather than when the event loop got round
/// to reading them.
///
/// Every connection's socket is registered, edge-triggered, in one epoll set;
/// poll() asks it without waiting and stamps connections whose sockets hold
/// unread bytes. Long pieces of work call pollIfDue() between their steps, so
/// a stamp is at most one poll interval (plus one step of that work) late.
/// The kernel's own receive timestamps (SO_TIMESTAMPNS) cannot be used instead:
/// Qt reads the socket with read(), which discards them, and TCP coalescing
/// gives a queue of segments the time of its latest segment, not its first.
class ArrivalWatch {
public:
    ArrivalWatch();
    ~ArrivalWatch();
    ArrivalWatch(const ArrivalWatch&) = delete;
    ArrivalWatch& operator=(const ArrivalWatch&) = delete;

    void add(SimConnection* connection, qintptr fd);
    /// Forgets `fd` if it is still registered to `connection` (the number may
    /// already belong to a newer socket when the old one was closed first).
    void remove(SimConnection* connection, qintptr fd);

    /// Stamps every registered connection that gained unread bytes since the last look.
    void poll();
    /// poll(), unless one ran less than the poll interval ago.
    void pollIfDue();
    /// How many stamps poll() has given (for tests and diagnostics).
    quint64 stampsGiven() const { return m_stamps; }

    static constexpr std::int64_t kPollIntervalUs = 50;

private:
    int m_epoll = -1;
    std::int64_t m_lastPollUs = 0;
    quint64 m_stamps = 0;
    std::unordered_map<qintptr, SimConnection*> m_connections;
};

} // namespace kssim
