#include "../sim/simprocess.h"
#include "server/serverlauncher.h"

#include "common/freeport.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace ks;

namespace {

ServerLauncher::Options simOptions(quint16 port, const QString& log = {})
{
    ServerLauncher::Options o;
    o.argv = { QStringLiteral(KNOBSCOPE_SIM_BIN), QStringLiteral("--port"), QString::number(port) };
    o.readyUrl = QUrl(QStringLiteral("http://127.0.0.1:%1/health").arg(port));
    o.readyTimeoutS = 20;
    o.stopGraceS = 5;
    o.logPath = log;
    return o;
}

LaunchError errorOf(const QSignalSpy& spy)
{
    return spy.first().first().value<LaunchError>();
}

} // namespace

class TestLauncher : public QObject {
    Q_OBJECT
private slots:
    void startsWaitsForReadyAndStops()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(QStringLiteral("server.log"));
        ServerLauncher launcher;
        QSignalSpy ready(&launcher, &ServerLauncher::ready);
        QSignalSpy stopped(&launcher, &ServerLauncher::stopped);
        QSignalSpy lines(&launcher, &ServerLauncher::outputLine);
        launcher.start(simOptions(freePort(), log));
        QVERIFY(ready.wait(20000));
        QVERIFY(launcher.isRunning());
        launcher.stop();
        QVERIFY(stopped.wait(10000));
        QVERIFY(!launcher.isRunning());
        QFile file(log);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("listening on http://127.0.0.1:"));
        QVERIFY(text.contains("exited with code 0")); // SIGTERM: clean exit
        QVERIFY(!lines.isEmpty());
    }

    // The spec's server.env reaches the server on top of knobscope's own
    // environment (Ollama takes its slot count from OLLAMA_NUM_PARALLEL).
    void environmentReachesTheServer()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(QStringLiteral("server.log"));
        const quint16 port = freePort();
        ServerLauncher::Options o = simOptions(port, log);
        o.argv = { QStringLiteral("/bin/sh"), QStringLiteral("-c"),
            QStringLiteral("echo \"env: $KS_TEST_SLOTS $HOME\"; exec \"$0\" --port %1").arg(port),
            QStringLiteral(KNOBSCOPE_SIM_BIN) };
        o.env = { { QStringLiteral("KS_TEST_SLOTS"), QStringLiteral("4") } };
        ServerLauncher launcher;
        QSignalSpy ready(&launcher, &ServerLauncher::ready);
        QSignalSpy stopped(&launcher, &ServerLauncher::stopped);
        launcher.start(o);
        QVERIFY(ready.wait(20000));
        launcher.stop();
        QVERIFY(stopped.wait(10000));
        QFile file(log);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY2(text.contains("env: 4 " + qgetenv("HOME")), text.constData());
    }

    void missingExecutableIsItsOwnError()
    {
        ServerLauncher launcher;
        QSignalSpy failed(&launcher, &ServerLauncher::failed);
        ServerLauncher::Options o = simOptions(freePort());
        o.argv = { QStringLiteral("no-such-server-binary-xyz") };
        launcher.start(o);
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(errorOf(failed), LaunchError::MissingExecutable);
        QVERIFY(failed.first().at(1).toString().contains(QStringLiteral("no-such-server-binary-xyz")));
    }

    void serverThatNeverBecomesReady()
    {
        ServerLauncher launcher;
        QSignalSpy failed(&launcher, &ServerLauncher::failed);
        QSignalSpy stopped(&launcher, &ServerLauncher::stopped);
        ServerLauncher::Options o = simOptions(freePort());
        o.argv = { QStringLiteral("sleep"), QStringLiteral("60") };
        o.readyTimeoutS = 0.6;
        launcher.start(o);
        QVERIFY(failed.wait(10000));
        QCOMPARE(errorOf(failed), LaunchError::NeverReady);
        QVERIFY(stopped.wait(10000)); // and it was stopped, not left running
    }

    void serverThatExitsBeforeReady()
    {
        ServerLauncher launcher;
        QSignalSpy failed(&launcher, &ServerLauncher::failed);
        ServerLauncher::Options o = simOptions(freePort());
        o.argv = { QStringLiteral(KNOBSCOPE_SIM_BIN), QStringLiteral("--profile"), QStringLiteral("no-such-profile") };
        launcher.start(o);
        QVERIFY(failed.wait(10000));
        QCOMPARE(errorOf(failed), LaunchError::ExitedBeforeReady);
        QVERIFY(failed.first().at(1).toString().contains(QStringLiteral("unknown profile")));
    }

    void portAlreadyInUse()
    {
        SimProcess other;
        QString error;
        QVERIFY2(other.start({}, &error), qPrintable(error));
        ServerLauncher launcher;
        QSignalSpy failed(&launcher, &ServerLauncher::failed);
        launcher.start(simOptions(other.port()));
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(errorOf(failed), LaunchError::PortInUse);
    }

    // Stop while still waiting for readiness: no ready() afterwards, and the
    // whole process group goes, so a child the server forked does not linger.
    void stopWhileStartingStopsTheServersGroup()
    {
        ServerLauncher launcher;
        QSignalSpy ready(&launcher, &ServerLauncher::ready);
        QSignalSpy failed(&launcher, &ServerLauncher::failed);
        QSignalSpy stopped(&launcher, &ServerLauncher::stopped);
        QSignalSpy lines(&launcher, &ServerLauncher::outputLine);
        ServerLauncher::Options o = simOptions(freePort()); // nothing listens there: never ready
        o.argv = { QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("sleep 60 & echo child $!; wait") };
        launcher.start(o);
        QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 1, 10000);
        const QString line = lines.first().first().toString();
        QVERIFY2(line.startsWith(QStringLiteral("child ")), qPrintable(line));
        const pid_t child = pid_t(line.section(QLatin1Char(' '), 1).toLongLong());
        const pid_t server = pid_t(launcher.pid());
        QCOMPARE(::getpgid(server), server); // a group of its own
        QCOMPARE(::getpgid(child), server);
        QVERIFY(::getpgid(server) != ::getpgid(0));

        launcher.stop();
        QVERIFY(stopped.wait(10000));
        QVERIFY(ready.isEmpty());
        QVERIFY(failed.isEmpty());
        auto alive = [](pid_t pid) { // and not a zombie waiting to be reaped
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
            if (!stat.open(QIODevice::ReadOnly))
                return false;
            const QByteArray text = stat.readAll();
            const qsizetype close = text.lastIndexOf(')');
            return close > 0 && text.size() > close + 2 && text[close + 2] != 'Z';
        };
        QTRY_VERIFY_WITH_TIMEOUT(!alive(child), 10000);
    }

    void serverKilledWhileServing()
    {
        ServerLauncher launcher;
        QSignalSpy ready(&launcher, &ServerLauncher::ready);
        QSignalSpy exited(&launcher, &ServerLauncher::exitedUnexpectedly);
        launcher.start(simOptions(freePort()));
        QVERIFY(ready.wait(20000));
        ::kill(pid_t(launcher.pid()), SIGKILL);
        QVERIFY(exited.wait(10000));
        QVERIFY(exited.first().first().toString().contains(QStringLiteral("crashed")));
    }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
