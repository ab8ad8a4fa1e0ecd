#pragma once

#include <QObject>

class QSocketNotifier;

namespace ks {

/// Turns SIGTERM and SIGINT into a Qt signal on the main thread (the self-pipe
/// pattern: the handler only writes one byte to a socket pair).
class UnixSignals : public QObject {
    Q_OBJECT
public:
    explicit UnixSignals(QObject* parent = nullptr);
    ~UnixSignals() override;

signals:
    void terminationRequested(int signalNumber);

private:
    static void handler(int signalNumber);
    static int s_fds[2];
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace ks
