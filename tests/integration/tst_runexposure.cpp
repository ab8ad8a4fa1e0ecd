// What `knobscope run` exposes to others: its --metrics-port endpoint listens
// on loopback unless --metrics-host says otherwise, and every server command it
// starts is printed on stderr as a line a shell reads back as the same argv.
#include <QDateTime>
#include <QFile>
#include <QHostAddress>
#include <QNetworkInterface>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

json externalSpec()
{
    // Never loaded: the shard waits for a start an hour away while the endpoint is probed.
    return { { "name", "exposure" }, { "target", { { "base_url", "http://127.0.0.1:9" } } },
        { "configs", { { { "label", "only" }, { "model", "sim-1.8b" } } } },
        { "arms", { { { "name", "a" }, { "mode", "concurrency" }, { "concurrency", 1 }, { "requests", 1 } } } } };
}

QString writeSpec(const QTemporaryDir& dir, const QString& name, const json& spec)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(QByteArray::fromStdString(spec.dump()));
    return path;
}

/// A knobscope run counting down to a start an hour away, with its endpoint up.
struct WaitingRun {
    QProcess process;
    QByteArray err;
    QString host;
    quint16 port = 0;

    bool start(const QString& spec, const QString& out, const QStringList& extra)
    {
        const QString startAt = QString::number(QDateTime::currentSecsSinceEpoch() + 3600);
        process.start(QStringLiteral(KNOBSCOPE_BIN),
            QStringList { QStringLiteral("run"), spec, QStringLiteral("--shard"), QStringLiteral("0/1"),
                QStringLiteral("--start-at"), startAt, QStringLiteral("--progress"), QStringLiteral("none"),
                QStringLiteral("--out"), out, QStringLiteral("--metrics-port"), QStringLiteral("0") }
                + extra);
        return process.waitForStarted();
    }
    bool serving()
    {
        static const QRegularExpression re(QStringLiteral("serving metrics at http://(.+):(\\d+)/metrics"));
        err += process.readAllStandardError();
        const auto m = re.match(QString::fromUtf8(err));
        if (m.hasMatch()) {
            host = m.captured(1);
            port = quint16(m.captured(2).toUInt());
        }
        return m.hasMatch();
    }
    ~WaitingRun()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(10000);
        }
    }
};

/// The status line of GET /metrics at address:port, or the socket's error.
QString getMetrics(const QHostAddress& address, quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(address, port);
    if (!socket.waitForConnected(5000))
        return QStringLiteral("error: ") + socket.errorString();
    socket.write("GET /metrics HTTP/1.1\r\nHost: knobscope\r\nConnection: close\r\n\r\n");
    QByteArray answer;
    while (!answer.contains("\r\n") && socket.waitForReadyRead(5000))
        answer += socket.readAll();
    return QString::fromLatin1(answer.left(answer.indexOf("\r\n")));
}

/// Addresses of this machine other than loopback (link-local IPv6 needs a scope, so it is left out).
QList<QHostAddress> otherLocalAddresses(bool ipv4Only)
{
    QList<QHostAddress> out;
    for (const QHostAddress& a : QNetworkInterface::allAddresses()) {
        if (a.isLoopback() || a.isLinkLocal() || (ipv4Only && a.protocol() != QAbstractSocket::IPv4Protocol))
            continue;
        out << a;
    }
    return out;
}

/// Local addresses of listening TCP sockets on `port`, from /proc/net/tcp and tcp6 (what `ss -ltn` reads).
QStringList listeningAddresses(quint16 port)
{
    QStringList out;
    for (const char* table : { "/proc/net/tcp", "/proc/net/tcp6" }) {
        QFile file(QString::fromLatin1(table));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& line : file.readAll().split('\n')) {
            const QList<QByteArray> f = line.simplified().split(' ');
            if (f.size() < 4 || f[3] != "0A") // 0A: LISTEN
                continue;
            const QList<QByteArray> local = f[1].split(':');
            if (local.size() != 2 || local[1].toUInt(nullptr, 16) != port)
                continue;
            if (local[0].size() == 8) {
                // The address's bytes in network order, printed as a host-order integer.
                out << QHostAddress(qFromBigEndian(quint32(local[0].toUInt(nullptr, 16)))).toString();
            } else {
                out << QStringLiteral("ipv6:") + QString::fromLatin1(local[0]);
            }
        }
    }
    return out;
}

} // namespace

class TestRunExposure : public QObject {
    Q_OBJECT
private slots:
    void metricsListenOnLoopbackByDefault()
    {
        QTemporaryDir dir;
        WaitingRun run;
        QVERIFY(run.start(writeSpec(dir, QStringLiteral("spec.json"), externalSpec()),
            dir.filePath(QStringLiteral("part.jsonl")), {}));
        QTRY_VERIFY_WITH_TIMEOUT(run.serving(), 20000);
        QCOMPARE(run.host, QStringLiteral("127.0.0.1"));
        QCOMPARE(getMetrics(QHostAddress::LocalHost, run.port), QStringLiteral("HTTP/1.1 200 OK"));
        // The listening socket is bound to 127.0.0.1, not to every interface.
        QCOMPARE(listeningAddresses(run.port), QStringList { QStringLiteral("127.0.0.1") });
        // And another address of this machine, where there is one, is refused.
        const QList<QHostAddress> others = otherLocalAddresses(false);
        for (const QHostAddress& other : others)
            QVERIFY2(getMetrics(other, run.port).startsWith(QStringLiteral("error: ")), qPrintable(other.toString()));
        if (others.isEmpty())
            qInfo("only loopback here: checked the listening socket's address alone");
    }

    void metricsHostAnyIsReachableEverywhere()
    {
        QTemporaryDir dir;
        WaitingRun run;
        QVERIFY(run.start(writeSpec(dir, QStringLiteral("spec.json"), externalSpec()),
            dir.filePath(QStringLiteral("part.jsonl")),
            { QStringLiteral("--metrics-host"), QStringLiteral("0.0.0.0") }));
        QTRY_VERIFY_WITH_TIMEOUT(run.serving(), 20000);
        QCOMPARE(run.host, QStringLiteral("0.0.0.0"));
        QCOMPARE(listeningAddresses(run.port), QStringList { QStringLiteral("0.0.0.0") });
        QCOMPARE(getMetrics(QHostAddress::LocalHost, run.port), QStringLiteral("HTTP/1.1 200 OK"));
        for (const QHostAddress& other : otherLocalAddresses(true))
            QCOMPARE(getMetrics(other, run.port), QStringLiteral("HTTP/1.1 200 OK"));
    }

    void badMetricsHostIsAUsageError_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("message");
        const auto flags = [](const char* port, const char* host) {
            QStringList out;
            if (port)
                out << QStringLiteral("--metrics-port") << QString::fromLatin1(port);
            return out << QStringLiteral("--metrics-host") << QString::fromLatin1(host);
        };
        QTest::newRow("a name") << flags("0", "localhost") << QStringLiteral("--metrics-host: expected an IP address");
        QTest::newRow("a typo") << flags("0", "127.0.0.256")
                                << QStringLiteral("--metrics-host: expected an IP address");
        QTest::newRow("no port") << flags(nullptr, "127.0.0.1")
                                 << QStringLiteral("--metrics-host goes with --metrics-port");
    }

    void badMetricsHostIsAUsageError()
    {
        QFETCH(QStringList, flags);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            QStringList { QStringLiteral("run"), writeSpec(dir, QStringLiteral("spec.json"), externalSpec()),
                QStringLiteral("--out"), dir.filePath(QStringLiteral("run.jsonl")) }
                + flags);
        QVERIFY(run.waitForFinished(20000));
        QCOMPARE(run.exitCode(), 2);
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("run.jsonl")))); // nothing ran
    }

    void runPrintsEachServerCommandItStarts()
    {
        // The command exits at once, so the server never becomes ready: only the printed line matters.
        QTemporaryDir dir;
        json spec = externalSpec();
        spec["server"] = { { "command", { "sh", "-c", "exit 3", "{model}", "it's" } }, { "ready_timeout_s", 5 },
            { "env", { { "KS_TOKEN", "secret-value" }, { "KS_NOTE", "two words" } } } };
        spec["configs"].push_back({ { "label", "second" }, { "model", "sim-8b" } });
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("run"), writeSpec(dir, QStringLiteral("spec.json"), spec), QStringLiteral("--out"),
                dir.filePath(QStringLiteral("run.jsonl")), QStringLiteral("--progress"), QStringLiteral("none") });
        QVERIFY(run.waitForFinished(60000));
        const QString err = QString::fromUtf8(run.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("knobscope run: starting the server of only: KS_NOTE='two words' "
                                             "KS_TOKEN='[redacted]' sh -c 'exit 3' sim-1.8b 'it'\\''s'\n")),
            qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("starting the server of second: KS_NOTE='two words' KS_TOKEN='[redacted]' "
                                             "sh -c 'exit 3' sim-8b 'it'\\''s'\n")),
            qPrintable(err));
        QVERIFY(!err.contains(QStringLiteral("secret-value")));
    }
};

QTEST_GUILESS_MAIN(TestRunExposure)
#include "tst_runexposure.moc"
