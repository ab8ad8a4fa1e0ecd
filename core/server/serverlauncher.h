#pragma once

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <QUrl>

class QNetworkAccessManager;

namespace ks {

enum class LaunchError { MissingExecutable, PortInUse, ExitedBeforeReady, NeverReady };
QString launchErrorName(LaunchError error);

/// Starts an inference server from an argv list (never through a shell), waits
/// until its ready path answers 200, streams its output to a log file and to
/// rate-limited lines, and stops it with SIGTERM, then SIGKILL after a grace period.
///
/// The server runs in a process group of its own: a Ctrl-C in the terminal
/// reaches knobscope only (which then stops the server in order), and stopping
/// signals the whole group, so helper processes a server forks go with it.
class ServerLauncher : public QObject {
    Q_OBJECT
public:
    struct Options {
        QStringList argv;
        QList<QPair<QString, QString>> env; ///< set on top of knobscope's own environment
        QUrl readyUrl;
        double readyTimeoutS = 600;
        double stopGraceS = 10;
        QString logPath; ///< appended; empty for none
    };

    explicit ServerLauncher(QObject* parent = nullptr);
    ~ServerLauncher() override;

    void start(const Options& options);
    /// Stops the server, also one still starting (the readiness wait ends at
    /// once and ready() no longer comes); stopped() follows when it has exited.
    void stop();
    /// Kills the server's group (SIGKILL: a server that ignores SIGTERM must not
    /// stay behind) and returns without waiting: for a knobscope that exits
    /// right after (a second Ctrl-C).
    void abandon();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    qint64 pid() const { return m_process.processId(); }

    /// argv[0] as given if it names a path; else next to this executable, then on PATH.
    static QString resolveProgram(const QString& program);

signals:
    void ready(qint64 elapsedMs);
    void failed(ks::LaunchError error, const QString& message);
    /// The server exited while it was supposed to be serving.
    void exitedUnexpectedly(const QString& message);
    void outputLine(const QString& line);
    void stopped();

private:
    void pollReady();
    void onOutput(QProcess::ProcessChannel channel);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void fail(LaunchError error, const QString& message);
    /// Sends `signalNumber` to the server's process group.
    void signalServer(int signalNumber);
    QString recentOutput() const;

    Options m_options;
    QProcess m_process;
    QFile m_log;
    QTimer m_pollTimer;
    QTimer m_killTimer;
    QTimer m_lineBudgetTimer;
    QElapsedTimer m_sinceStart;
    QNetworkAccessManager* m_nam = nullptr;
    QStringList m_tail; ///< last lines, for error messages
    int m_linesThisSecond = 0;
    int m_suppressed = 0;
    bool m_ready = false;
    bool m_stopping = false;
    bool m_failed = false;
    bool m_polling = false;
};

} // namespace ks

Q_DECLARE_METATYPE(ks::LaunchError)
