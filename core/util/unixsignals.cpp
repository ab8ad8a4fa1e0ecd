#include "util/unixsignals.h"

#include <QSocketNotifier>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace ks {

int UnixSignals::s_fds[2] = { -1, -1 };

UnixSignals::UnixSignals(QObject* parent)
    : QObject(parent)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, s_fds) != 0)
        return;
    m_notifier = new QSocketNotifier(s_fds[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        char signalNumber = 0;
        if (::read(s_fds[1], &signalNumber, 1) == 1)
            emit terminationRequested(signalNumber);
    });
    struct sigaction action = {};
    action.sa_handler = &UnixSignals::handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    // A client that vanishes mid-write must not kill the server.
    std::signal(SIGPIPE, SIG_IGN);
}

UnixSignals::~UnixSignals()
{
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    delete m_notifier;
    for (int& fd : s_fds) {
        if (fd >= 0)
            ::close(fd);
        fd = -1; // a signal still on its way writes nowhere
    }
}

void UnixSignals::handler(int signalNumber)
{
    const char byte = char(signalNumber);
    [[maybe_unused]] const auto written = ::write(s_fds[0], &byte, 1);
}

} // namespace ks
