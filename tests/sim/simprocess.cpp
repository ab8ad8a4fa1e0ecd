#include "simprocess.h"

#include <QElapsedTimer>
#include <QRegularExpression>

SimProcess::~SimProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool SimProcess::start(const QStringList& args, QString* error)
{
    m_process.setProgram(QStringLiteral(KNOBSCOPE_SIM_BIN));
    m_process.setArguments(QStringList { QStringLiteral("--port"), QStringLiteral("0") } + args);
    m_process.start();
    if (!m_process.waitForStarted(10000)) {
        *error = m_process.errorString();
        return false;
    }
    QByteArray out;
    QElapsedTimer timer;
    timer.start();
    static const QRegularExpression listening(QStringLiteral("^listening on http://127\\.0\\.0\\.1:(\\d+)$"));
    while (timer.elapsed() < 20000) {
        if (m_process.canReadLine()) {
            const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
            const auto match = listening.match(line);
            if (!match.hasMatch()) {
                *error = QStringLiteral("unexpected first line: ") + line;
                return false;
            }
            m_port = quint16(match.captured(1).toUInt());
            return true;
        }
        if (m_process.state() == QProcess::NotRunning) {
            *error = QStringLiteral("exited early: ") + QString::fromUtf8(m_process.readAllStandardError());
            return false;
        }
        m_process.waitForReadyRead(100);
    }
    *error = QStringLiteral("no 'listening on' line within 20 s");
    return false;
}

int SimProcess::terminate()
{
    m_process.terminate();
    if (!m_process.waitForFinished(10000)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return -1;
    }
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}
