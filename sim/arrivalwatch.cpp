#include "arrivalwatch.h"

#include "simconnection.h"
#include "util/monotonicclock.h"

#include <QLoggingCategory>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcArrivalWatch, "ks.sim.arrival")

namespace kssim {

namespace {
constexpr int kEventsPerCall = 64;
constexpr std::int64_t kNsPerS = 1000000000;

std::int64_t nanoseconds(const timespec& t)
{
    return std::int64_t(t.tv_sec) * kNsPerS + t.tv_nsec;
}

/// CLOCK_REALTIME minus CLOCK_MONOTONIC, read between two monotonic reads
/// (the pair is well under a microsecond apart, so the error is too).
std::int64_t realtimeOffsetNs()
{
    timespec before {}, real {}, after {};
    ::clock_gettime(CLOCK_MONOTONIC, &before);
    ::clock_gettime(CLOCK_REALTIME, &real);
    ::clock_gettime(CLOCK_MONOTONIC, &after);
    return nanoseconds(real) - (nanoseconds(before) + nanoseconds(after)) / 2;
}
} // namespace

ArrivalWatch::ArrivalWatch()
    : m_epoll(::epoll_create1(EPOLL_CLOEXEC))
{
    if (m_epoll < 0) {
        qCWarning(lcArrivalWatch) << "epoll_create1 failed; arrivals are stamped when read";
        return;
    }
    // Created before any connection's socket, so in an event-loop pass that has
    // input this notifier runs first and peeks before Qt reads.
    m_notifier = std::make_unique<QSocketNotifier>(m_epoll, QSocketNotifier::Read);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(), [this] { poll(); });
}

ArrivalWatch::~ArrivalWatch()
{
    m_notifier.reset();
    if (m_epoll >= 0)
        ::close(m_epoll);
}

bool ArrivalWatch::enableReceiveTimestamps(qintptr fd)
{
    const int one = 1;
    if (::setsockopt(int(fd), SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0)
        return true;
    qCWarning(lcArrivalWatch) << "no receive timestamps for socket" << fd << std::strerror(errno);
    return false;
}

void ArrivalWatch::add(SimConnection* connection, qintptr fd)
{
    if (m_epoll < 0 || fd < 0)
        return;
    enableReceiveTimestamps(fd);
    // Edge-triggered: one event per arrival of new bytes, not one per poll for
    // as long as Qt has not read them.
    epoll_event ev {};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.fd = int(fd);
    // A closed socket leaves the set by itself, so a reused number is new to it;
    // MOD covers a number whose old registration somehow survived.
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, int(fd), &ev) != 0
        && (errno != EEXIST || ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, int(fd), &ev) != 0)) {
        qCWarning(lcArrivalWatch) << "epoll_ctl failed for socket" << fd << std::strerror(errno);
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

std::int64_t ArrivalWatch::peekArrivalUs(int fd, std::int64_t nowUs)
{
    char byte = 0;
    iovec iov { &byte, 1 };
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(timespec))> control {};
    msghdr message {};
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    if (::recvmsg(fd, &message, MSG_PEEK | MSG_DONTWAIT) <= 0)
        return -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
            continue;
        timespec received {};
        std::memcpy(&received, CMSG_DATA(c), sizeof received);
        if (m_offsetAtUs != nowUs) {
            m_realtimeOffsetNs = realtimeOffsetNs();
            m_offsetAtUs = nowUs;
        }
        ++m_kernelStamps;
        return std::min(nowUs, (nanoseconds(received) - m_realtimeOffsetNs) / 1000);
    }
    return nowUs;
}

void ArrivalWatch::poll()
{
    if (m_epoll < 0)
        return;
    std::array<epoll_event, kEventsPerCall> events;
    int n = 0;
    do {
        n = ::epoll_wait(m_epoll, events.data(), kEventsPerCall, 0);
        const std::int64_t now = ks::monotonicUs();
        m_lastPollUs = now;
        for (int i = 0; i < n; ++i) {
            const int fd = events[std::size_t(i)].data.fd;
            const auto it = m_connections.find(fd);
            if (it == m_connections.end() || it->second->hasUnreadStamp())
                continue;
            const std::int64_t arrival = peekArrivalUs(fd, now);
            if (arrival < 0)
                continue;
            it->second->stampUnread(arrival);
            ++m_stamps;
        }
    } while (n == kEventsPerCall);
}

void ArrivalWatch::pollIfDue()
{
    if (ks::monotonicUs() - m_lastPollUs >= kPollIntervalUs)
        poll();
}

} // namespace kssim
