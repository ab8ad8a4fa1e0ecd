#include "server/serverlauncher.h"

#include "client/requestfactory.h"
#include "util/redact.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTcpSocket>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace ks {

namespace {
constexpr int kPollMs = 250;
constexpr int kLinesPerSecond = 20; // to server_event records; the log file gets everything
constexpr int kTailLines = 12;
} // namespace

QString launchErrorName(LaunchError error)
{
    switch (error) {
    case LaunchError::MissingExecutable:
        return QStringLiteral("missing_executable");
    case LaunchError::PortInUse:
        return QStringLiteral("port_in_use");
    case LaunchError::ExitedBeforeReady:
        return QStringLiteral("exited_before_ready");
    case LaunchError::NeverReady:
        return QStringLiteral("never_ready");
    }
    return {};
}

ServerLauncher::ServerLauncher(QObject* parent)
    : QObject(parent)
    , m_process(this)
    , m_pollTimer(this)
    , m_killTimer(this)
    , m_lineBudgetTimer(this)
{
    qRegisterMetaType<LaunchError>();
    m_pollTimer.setInterval(kPollMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &ServerLauncher::pollReady);
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] { signalServer(SIGKILL); });
    m_lineBudgetTimer.setInterval(1000);
    connect(&m_lineBudgetTimer, &QTimer::timeout, this, [this] {
        if (m_suppressed > 0)
            emit outputLine(QStringLiteral("(%1 more lines in the server log)").arg(m_suppressed));
        m_suppressed = 0;
        m_linesThisSecond = 0;
    });
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] { onOutput(QProcess::StandardOutput); });
    connect(&m_process, &QProcess::readyReadStandardError, this, [this] { onOutput(QProcess::StandardError); });
    connect(&m_process, &QProcess::finished, this, &ServerLauncher::onFinished);
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(LaunchError::MissingExecutable,
                QStringLiteral("cannot start '%1': %2").arg(m_options.argv.value(0), m_process.errorString()));
    });
}

ServerLauncher::~ServerLauncher()
{
    if (m_process.state() != QProcess::NotRunning) {
        signalServer(SIGKILL);
        m_process.waitForFinished(3000);
    }
}

QString ServerLauncher::resolveProgram(const QString& program)
{
    if (program.contains(QLatin1Char('/')))
        return QFileInfo(program).isExecutable() ? program : QString();
    const QString beside = QCoreApplication::applicationDirPath() + QLatin1Char('/') + program;
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(program);
}

void ServerLauncher::start(const Options& options)
{
    m_options = options;
    m_ready = m_stopping = m_failed = m_polling = false;
    m_tail.clear();
    const QString program = resolveProgram(options.argv.value(0));
    if (program.isEmpty()) {
        fail(LaunchError::MissingExecutable,
            QStringLiteral("cannot find executable '%1' (looked next to knobscope and on PATH)")
                .arg(options.argv.value(0)));
        return;
    }
    // Someone else already answering on the target port would be measured instead of our server.
    QTcpSocket probe;
    probe.connectToHost(options.readyUrl.host(),
        quint16(options.readyUrl.port(options.readyUrl.scheme() == QLatin1String("https") ? 443 : 80)));
    if (probe.waitForConnected(300)) {
        fail(LaunchError::PortInUse,
            QStringLiteral("something is already listening on %1:%2; stop it or change target.base_url")
                .arg(options.readyUrl.host())
                .arg(options.readyUrl.port()));
        return;
    }
    if (!options.logPath.isEmpty()) {
        m_log.setFileName(options.logPath);
        m_log.open(QIODevice::Append | QIODevice::Text);
        m_log.write(QStringLiteral("== %1 starting: %2\n")
                        .arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate),
                            redactArgv(options.argv).join(QLatin1Char(' ')))
                        .toUtf8());
    }
    if (!m_nam)
        m_nam = new QNetworkAccessManager(this);
    m_sinceStart.start();
    m_lineBudgetTimer.start();
    // A launched server never outlives knobscope, also after kill -9: the kernel
    // sends it SIGTERM when the thread that started it dies (PR_SET_PDEATHSIG).
    // The launcher stops it itself before then; this covers a killed knobscope.
    const pid_t parent = getpid();
    m_process.setChildProcessModifier([parent] {
        ::setpgid(0, 0); // its own group: see the class comment
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) // knobscope died between fork and prctl
            ::_exit(1);
    });
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const auto& [name, value] : options.env)
        environment.insert(name, value);
    m_process.setProcessEnvironment(environment);
    m_process.start(program, options.argv.mid(1));
    m_pollTimer.start();
}

void ServerLauncher::stop()
{
    m_pollTimer.stop();
    if (m_process.state() == QProcess::NotRunning) {
        emit stopped();
        return;
    }
    m_stopping = true; // from here a readiness answer in flight is ignored
    signalServer(SIGTERM);
    if (!m_killTimer.isActive())
        m_killTimer.start(int(m_options.stopGraceS * 1000));
}

void ServerLauncher::abandon()
{
    m_pollTimer.stop();
    if (m_process.state() != QProcess::NotRunning)
        signalServer(SIGKILL);
}

void ServerLauncher::signalServer(int signalNumber)
{
    const qint64 pid = m_process.processId();
    if (pid <= 0)
        return;
    // The group first; the process alone if it has none of its own (a failed setpgid).
    if (::kill(-pid_t(pid), signalNumber) != 0)
        ::kill(pid_t(pid), signalNumber);
}

void ServerLauncher::pollReady()
{
    if (m_ready || m_failed || m_polling || m_stopping)
        return;
    if (m_sinceStart.elapsed() > qint64(m_options.readyTimeoutS * 1000)) {
        fail(LaunchError::NeverReady,
            QStringLiteral("%1 did not answer 200 within %2 s; last output:\n%3")
                .arg(m_options.readyUrl.toString())
                .arg(m_options.readyTimeoutS)
                .arg(recentOutput()));
        stop();
        return;
    }
    QNetworkRequest request(m_options.readyUrl);
    request.setRawHeader("User-Agent", RequestFactory::userAgent());
    request.setTransferTimeout(2000);
    m_polling = true;
    QNetworkReply* reply = m_nam->get(request);
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        m_polling = false;
        reply->deleteLater();
        if (m_failed || m_ready || m_stopping || m_process.state() != QProcess::Running)
            return;
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200) {
            m_ready = true;
            m_pollTimer.stop();
            emit ready(m_sinceStart.elapsed());
        }
    });
}

void ServerLauncher::onOutput(QProcess::ProcessChannel channel)
{
    m_process.setReadChannel(channel);
    while (m_process.canReadLine()) {
        const QString line = redactLine(QString::fromUtf8(m_process.readLine()).trimmed());
        if (m_log.isOpen())
            m_log.write((line + QLatin1Char('\n')).toUtf8());
        m_tail << line;
        if (m_tail.size() > kTailLines)
            m_tail.removeFirst();
        if (m_linesThisSecond++ < kLinesPerSecond)
            emit outputLine(line);
        else
            ++m_suppressed;
    }
    if (m_log.isOpen())
        m_log.flush();
}

void ServerLauncher::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_pollTimer.stop();
    m_killTimer.stop();
    m_lineBudgetTimer.stop();
    const QString how = status == QProcess::CrashExit ? QStringLiteral("crashed")
                                                      : QStringLiteral("exited with code %1").arg(exitCode);
    if (m_log.isOpen()) {
        m_log.write(QStringLiteral("== server %1\n").arg(how).toUtf8());
        m_log.close();
    }
    if (m_stopping) {
        m_stopping = false;
        emit stopped();
        return;
    }
    if (m_failed)
        return;
    if (!m_ready) {
        const QString output = recentOutput();
        const bool portTaken = output.contains(QLatin1String("in use"), Qt::CaseInsensitive);
        fail(portTaken ? LaunchError::PortInUse : LaunchError::ExitedBeforeReady,
            QStringLiteral("the server %1 before it was ready; last output:\n%2").arg(how, output));
        return;
    }
    emit exitedUnexpectedly(QStringLiteral("the server %1 while serving; last output:\n%2").arg(how, recentOutput()));
}

void ServerLauncher::fail(LaunchError error, const QString& message)
{
    if (m_failed)
        return;
    m_failed = true;
    m_pollTimer.stop();
    emit failed(error, message);
}

QString ServerLauncher::recentOutput() const
{
    return m_tail.isEmpty() ? QStringLiteral("(none)") : m_tail.join(QLatin1Char('\n'));
}

} // namespace ks
