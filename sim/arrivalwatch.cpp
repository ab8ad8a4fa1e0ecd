#include "arrivalwatch.h"

#include "monotonicclock.h"
#include "simconnection.h"

#include <QLoggingCategory>

#include <array>
#include <cerrno>

#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcArrivalWatch, "ks.sim.arrival")

namespace kssim {

namespace {
constexpr int kEventsPerCall = 64;

bool hasUnreadBytes(qintptr fd)
{
    int unread = 0;
    return ::ioctl(int(fd), FIONREAD, &unread) == 0 && unread > 0;
}
} // namespace

ArrivalWatch::ArrivalWatch()
    : m_epoll(::epoll_create1(EPOLL_CLOEXEC))
{
    if (m_epoll < 0)
        qCWarning(lcArrivalWatch) << "epoll_create1 failed; arrivals are stamped when read";
}

ArrivalWatch::~ArrivalWatch()
{
    if (m_epoll >= 0)
        ::close(m_epoll);
}

void ArrivalWatch::add(SimConnection* connection, qintptr fd)
{
    if (m_epoll < 0 || fd < 0)
        return;
    // Edge-triggered: one event per arrival of new bytes, not one per poll for
    // as long as Qt has not read them.
    epoll_event ev {};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.fd = int(fd);
    // A closed socket leaves the set by itself, so a reused number is new to it;
    // MOD covers a number whose old registration somehow survived.
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, int(fd), &ev) != 0
        && (errno != EEXIST || ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, int(fd), &ev) != 0)) {
        qCWarning(lcArrivalWatch) << "epoll_ctl failed for socket" << fd;
        return;
    }
    m_connections[fd] = connection;
}

void ArrivalWatch::remove(SimConnection* connection, qintptr fd)
{
    const auto it = m_connections.find(fd);
    if (it == m_connections.end() || it->second != connection)
        return;
    m_connections.erase(it);
    // Fails harmlessly when the socket is already closed (and so already out of the set).
    ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, int(fd), nullptr);
}

void ArrivalWatch::poll()
{
    if (m_epoll < 0)
        return;
    std::array<epoll_event, kEventsPerCall> events;
    int n = 0;
    do {
        n = ::epoll_wait(m_epoll, events.data(), kEventsPerCall, 0);
        const std::int64_t now = monotonicNowUs();
        m_lastPollUs = now;
        for (int i = 0; i < n; ++i) {
            const int fd = events[std::size_t(i)].data.fd;
            const auto it = m_connections.find(fd);
            if (it == m_connections.end() || it->second->hasUnreadStamp())
                continue;
            // An edge for bytes Qt has read since is stale: nothing is left unread.
            if (!hasUnreadBytes(fd))
                continue;
            it->second->stampUnread(now);
            ++m_stamps;
        }
    } while (n == kEventsPerCall);
}

void ArrivalWatch::pollIfDue()
{
    if (monotonicNowUs() - m_lastPollUs >= kPollIntervalUs)
        poll();
}

} // namespace kssim
