#include "../sim/simprocess.h"
#include "run/serverlauncher.h"

#include "common/freeport.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

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
