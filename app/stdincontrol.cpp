#include "stdincontrol.h"

#include <cerrno>
#include <unistd.h>

StdinControl::StdinControl(QObject* parent)
    : QObject(parent)
    , m_notifier(STDIN_FILENO, QSocketNotifier::Read)
{
    connect(&m_notifier, &QSocketNotifier::activated, this, &StdinControl::readAvailable);
}

void StdinControl::readAvailable()
{
    char buffer[4096];
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer); // the notifier says it will not block
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        m_notifier.setEnabled(false);
        if (!m_pending.isEmpty())
            emit lineRead(QString::fromUtf8(std::exchange(m_pending, {})));
        emit closed();
        return;
    }
    m_pending.append(buffer, n);
    qsizetype end;
    while ((end = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(end);
        m_pending.remove(0, end + 1);
        emit lineRead(QString::fromUtf8(line));
    }
}
