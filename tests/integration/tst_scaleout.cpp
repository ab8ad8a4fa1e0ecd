// Scale-out end to end against the real simulator: `run --metrics-port`
// answering while a run goes, `run --shard` refusing what it cannot split,
// and two shards merged into one run with the requests of one unsharded run.
#include "sim/simprocess.h"

#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <set>

using nlohmann::json;

namespace {

json externalSpec(quint16 simPort, int concurrency, int requests, int maxTokens)
{
    return { { "name", "scaleout" }, { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(simPort) } } },
        { "configs", { { { "label", "sim" }, { "model", "sim-1.8b" } } } },
        { "arms",
            { { { "name", "load" }, { "mode", "concurrency" }, { "concurrency", concurrency }, { "requests", requests },
                { "max_tokens", maxTokens } } } },
        { "prompts", { { "source", "synthetic" }, { "input_tokens", 16 }, { "seed", 3 } } } };
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const json& content)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(QByteArray::fromStdString(content.dump()));
    return path;
}

// Complete request lines in a run file being written (a half-written last line is not counted).
int requestLines(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    QByteArray text = file.readAll();
    text.truncate(text.lastIndexOf('\n') + 1);
    return int(text.count("\"type\":\"request\""));
}

// Sum of every sample of a metric family's series named `series` (across labels).
double sumOf(const QByteArray& text, const QByteArray& series, const QByteArray& labelFilter = {})
{
    double sum = 0;
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith(series + '{') && line.contains(labelFilter))
            sum += line.mid(line.lastIndexOf(' ') + 1).toDouble();
    }
    return sum;
}

QByteArray get(const QUrl& url)
{
    QNetworkAccessManager nam;
    QNetworkReply* reply = nam.get(QNetworkRequest(url));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    const QByteArray body = reply->error() == QNetworkReply::NoError ? reply->readAll() : QByteArray();
    reply->deleteLater();
    return body;
}

QStringList runArgs(const QString& spec, const QString& out)
{
    return { QStringLiteral("run"), spec, QStringLiteral("--out"), out, QStringLiteral("--progress"),
        QStringLiteral("none") };
}

} // namespace

class TestScaleOut : public QObject {
    Q_OBJECT
private slots:
    void metricsPortCountsWhatTheFileHolds()
    {
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b") }, &error), qPrintable(error));
        QTemporaryDir dir;
        // Far more requests than the test waits for: the run is still going at every scrape, then stopped.
        const QString spec = writeFile(dir, QStringLiteral("spec.json"), externalSpec(sim.port(), 4, 1000000, 32));
        const QString out = dir.filePath(QStringLiteral("run.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            runArgs(spec, out) << QStringLiteral("--metrics-port") << QStringLiteral("0"));
        QVERIFY(run.waitForStarted());
        QByteArray err;
        static const QRegularExpression serving(
            QStringLiteral("serving metrics at http://127\\.0\\.0\\.1:(\\d+)/metrics"));
        QRegularExpressionMatch match;
        QTRY_VERIFY_WITH_TIMEOUT(
            (err += run.readAllStandardError(), match = serving.match(QString::fromUtf8(err)), match.hasMatch()),
            20000);
        const QUrl url(QStringLiteral("http://127.0.0.1:%1/metrics").arg(match.captured(1)));
        QTRY_VERIFY_WITH_TIMEOUT(requestLines(out) >= 8, 30000);

        bool sawInFlight = false;
        for (int scrape = 0; scrape < 5; ++scrape) {
            // The exporter counts a batch right after it is flushed to the file, in the same
            // event-loop turn: what it serves lies between the file before and after the scrape.
            const int before = requestLines(out);
            const QByteArray text = get(url);
            const int after = requestLines(out);
            QVERIFY2(!text.isEmpty(), "no answer from --metrics-port while the run goes");
            const double ttftCount = sumOf(text, "knobscope_time_to_first_token_seconds_count");
            const double ok = sumOf(text, "knobscope_requests_total", "outcome=\"ok\"");
            const double errors = sumOf(text, "knobscope_requests_total", "outcome=\"error\"");
            QCOMPARE(errors, 0.0);
            QCOMPARE(ttftCount, ok); // every completed request has a TTFT
            QVERIFY2(before <= ttftCount && ttftCount <= after,
                qPrintable(
                    QStringLiteral("file had %1..%2 records, endpoint %3").arg(before).arg(after).arg(ttftCount)));
            const double inFlight = sumOf(text, "knobscope_requests_in_flight");
            QVERIFY(inFlight >= 0 && inFlight <= 4);
            sawInFlight = sawInFlight || inFlight > 0;
            QVERIFY(text.contains("knobscope_time_to_first_token_seconds_bucket{run=\"sim/load\",le=\"+Inf\"}"));
            // The next scrape after the run has flushed another batch: each sees a new state.
            QTRY_VERIFY_WITH_TIMEOUT(requestLines(out) > after, 30000);
        }
        QVERIFY(sawInFlight);
        run.terminate();
        QVERIFY(run.waitForFinished(30000));
    }

    void shardRefusesASpecThatLaunchesAServer()
    {
        QTemporaryDir dir;
        json spec = externalSpec(1, 4, 8, 8);
        spec["server"] = { { "command", { "knobscope-sim", "--port", "8000" } } };
        const QString out = dir.filePath(QStringLiteral("part.jsonl"));
        QProcess run;
        run.start(QStringLiteral(KNOBSCOPE_BIN),
            runArgs(writeFile(dir, QStringLiteral("spec.json"), spec), out)
                << QStringLiteral("--shard") << QStringLiteral("0/2"));
        QVERIFY(run.waitForFinished(30000));
        QCOMPARE(run.exitCode(), 2);
        QVERIFY(QString::fromUtf8(run.readAllStandardError()).contains(QStringLiteral("cannot shard: server:")));
        QVERIFY(!QFile::exists(out));
    }

    void twoShardsMergeIntoOneRunsWorth()
    {
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b") }, &error), qPrintable(error));
        QTemporaryDir dir;
        const QString spec = writeFile(dir, QStringLiteral("spec.json"), externalSpec(sim.port(), 6, 41, 16));
        // Both shards count down to the same moment, a few seconds ahead (past it, they start at once).
        const QString startAt = QString::number(QDateTime::currentSecsSinceEpoch() + 3);
        QProcess shards[2];
        for (int i = 0; i < 2; ++i)
            shards[i].start(QStringLiteral(KNOBSCOPE_BIN),
                runArgs(spec, dir.filePath(QStringLiteral("part-%1.jsonl").arg(i)))
                    << QStringLiteral("--shard") << QStringLiteral("%1/2").arg(i) << QStringLiteral("--start-at")
                    << startAt);
        for (QProcess& shard : shards) {
            QVERIFY(shard.waitForFinished(120000));
            QVERIFY2(shard.exitCode() == 0, shard.readAllStandardError().constData());
        }
        QCOMPARE(requestLines(dir.filePath(QStringLiteral("part-0.jsonl"))), 21); // 41 = 21 + 20
        QCOMPARE(requestLines(dir.filePath(QStringLiteral("part-1.jsonl"))), 20);

        const QString merged = dir.filePath(QStringLiteral("merged.jsonl"));
        QProcess merge;
        merge.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("merge"), dir.filePath(QStringLiteral("part-1.jsonl")),
                dir.filePath(QStringLiteral("part-0.jsonl")), QStringLiteral("--out"), merged });
        QVERIFY(merge.waitForFinished(30000));
        QVERIFY2(merge.exitCode() == 0, merge.readAllStandardError().constData());
        QVERIFY(merge.readAllStandardOutput().contains("sim/load: 41 requests from 2 parts, start skew"));

        QFile file(merged);
        QVERIFY(file.open(QIODevice::ReadOnly));
        std::set<qint64> ids;
        json summary, runLine;
        for (const QByteArray& line : file.readAll().split('\n')) {
            if (line.isEmpty())
                continue;
            const json j = json::parse(line.toStdString());
            if (j["type"] == "request")
                ids.insert(j["id"].get<qint64>());
            else if (j["type"] == "summary")
                summary = j;
            else if (j["type"] == "run")
                runLine = j;
        }
        QCOMPARE(ids.size(), std::size_t(41));
        QCOMPARE(summary["requests"].get<int>(), 41);
        QCOMPARE(summary["ok"].get<int>(), 41);
        QCOMPARE(runLine["merged"]["shards"].get<int>(), 2);
        QVERIFY(runLine["merged"]["start_skew_us"].get<qint64>() >= 0);

        // The merged file is an ordinary run file: report reads it.
        QProcess report;
        report.start(QStringLiteral(KNOBSCOPE_BIN), { QStringLiteral("report"), merged, QStringLiteral("--json") });
        QVERIFY(report.waitForFinished(30000));
        QCOMPARE(report.exitCode(), 0);
        const json reported = json::parse(report.readAllStandardOutput().toStdString());
        QCOMPARE(reported[0]["requests"].get<int>(), 41);
    }
};

QTEST_GUILESS_MAIN(TestScaleOut)
#include "tst_scaleout.moc"
