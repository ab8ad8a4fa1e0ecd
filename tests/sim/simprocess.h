#pragma once

#include <QProcess>
#include <QStringList>

/// Runs the real knobscope-sim executable on a free port for one test.
class SimProcess {
public:
    ~SimProcess();
    /// Starts with `--port 0` plus `args` and waits for the "listening on" line.
    bool start(const QStringList& args, QString* error);
    quint16 port() const { return m_port; }
    /// SIGTERM, then waits; returns the exit code (-1 if it had to be killed).
    int terminate();
    QByteArray stderrText() { return m_process.readAllStandardError(); }

private:
    QProcess m_process;
    quint16 m_port = 0;
};
