#pragma once

#include <QObject>
#include <QSocketNotifier>

/// Reads standard input line by line as it arrives, without blocking the
/// event loop (`knobscope run ... --control stdin`): a script or a person
/// steers the running arm while it runs.
class StdinControl : public QObject {
    Q_OBJECT
public:
    explicit StdinControl(QObject* parent = nullptr);

signals:
    void lineRead(const QString& line);
    /// Standard input closed: no more commands (the run goes on).
    void closed();

private:
    void readAvailable();

    QSocketNotifier m_notifier;
    QByteArray m_pending;
};
