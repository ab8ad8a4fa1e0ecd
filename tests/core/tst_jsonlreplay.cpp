#include "source/jsonlreplay.h"
#include "store/jsonlwriter.h"
#include "store/recordjson.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <utility>

using namespace ks;

namespace {

RequestRecord record(const QString& run, qint64 id)
{
    RequestRecord r;
    r.run = run;
    r.id = id;
    r.tSendUs = id * 1000;
    r.tSchedUs = r.tSendUs;
    r.ttftUs = 500;
    r.e2eUs = 2000;
    r.outTokens = 3;
    r.itlUs = { 700, 800 };
    r.ok = true;
    r.status = 200;
    return r;
}

/// A file with one run "r" holding the requests with these ids.
bool writeRun(const QString& path, const std::vector<qint64>& ids)
{
    JsonlWriter w;
    QString error;
    if (!w.open(path, &error))
        return false;
    w.write({ { "type", "run" }, { "run", "r" } });
    for (qint64 id : ids)
        w.write(toJson(record(QStringLiteral("r"), id)));
    w.close();
    return true;
}

struct Collected {
    QStringList runs;
    std::vector<RequestRecord> records;
    QStringList summaries;
    QList<qint64> issueLines;
};

Collected replay(const QString& path, double speed)
{
    Collected c;
    JsonlReplay replay(path, speed);
    QObject::connect(
        &replay, &JsonlReplay::runStarted, [&](const RunInfo& i) { c.runs << i.run + QLatin1Char(':') + i.config; });
    QObject::connect(&replay, &JsonlReplay::recordsReady,
        [&](const QVector<RequestRecord>& b) { c.records.insert(c.records.end(), b.begin(), b.end()); });
    QObject::connect(
        &replay, &JsonlReplay::summaryRead, [&](const QString& run, const nlohmann::json&) { c.summaries << run; });
    QObject::connect(&replay, &JsonlReplay::issueFound, [&](qint64 line, const QString&) { c.issueLines << line; });
    QSignalSpy finished(&replay, &JsonlReplay::finished);
    replay.start();
    if (finished.isEmpty())
        finished.wait(20000);
    return c;
}

} // namespace

class TestJsonlReplay : public QObject {
    Q_OBJECT
private slots:
    void replaysEveryRunAndRecordInOrder_data()
    {
        QTest::addColumn<double>("speed");
        QTest::newRow("as fast as possible") << 0.0;
        QTest::newRow("paced 10x") << 10.0;
    }
    void replaysEveryRunAndRecordInOrder()
    {
        QFETCH(double, speed);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.jsonl"));
        JsonlWriter w;
        QString error;
        QVERIFY(w.open(path, &error));
        w.write({ { "type", "experiment" }, { "schema", 1 } });
        for (const char* run : { "a/stress", "b/stress" }) {
            w.write({ { "type", "run" }, { "run", run }, { "config", std::string(run).substr(0, 1) },
                { "arm", "stress" } });
            for (qint64 i = 0; i < 50; ++i)
                w.write(toJson(record(QString::fromLatin1(run), i)));
            w.write({ { "type", "summary" }, { "run", run }, { "ok", 50 } });
        }
        w.close();

        const Collected c = replay(path, speed);
        QCOMPARE(c.runs, (QStringList { QStringLiteral("a/stress:a"), QStringLiteral("b/stress:b") }));
        QCOMPARE(c.summaries, (QStringList { QStringLiteral("a/stress"), QStringLiteral("b/stress") }));
        QCOMPARE(c.records.size(), std::size_t(100));
        for (std::size_t i = 0; i < 100; ++i) {
            QCOMPARE(c.records[i].run, QString::fromLatin1(i < 50 ? "a/stress" : "b/stress"));
            QCOMPARE(c.records[i].id, qint64(i % 50));
            QCOMPARE(c.records[i].itlUs, (std::vector<std::int32_t> { 700, 800 }));
        }
        QVERIFY(c.issueLines.isEmpty());
    }

    void pacedReplayHoldsRecordsUntilTheyAreDue()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("paced.jsonl"));
        QVERIFY(writeRun(path, { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }));
        // At 1e-6x the first request (ends 2 ms into the run) is due after 2000 s.
        JsonlReplay replay(path, 1e-6);
        int records = 0;
        connect(&replay, &JsonlReplay::recordsReady, this,
            [&](const QVector<RequestRecord>& b) { records += int(b.size()); });
        QSignalSpy started(&replay, &JsonlReplay::runStarted);
        QSignalSpy finished(&replay, &JsonlReplay::finished);
        replay.start();
        QVERIFY(started.wait(5000)); // the first pass has read the run line and met the first request
        QCOMPARE(records, 0);
        replay.stop();
        QCOMPARE(finished.size(), 1);
        QCOMPARE(records, 0);
    }

    void pauseHoldsTheRunClockAndSpeedCanChange()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("pause.jsonl"));
        QVERIFY(writeRun(path, { 100 })); // the request ends 102 ms into the run
        JsonlReplay replay(path, 1.0);
        int records = 0;
        connect(&replay, &JsonlReplay::recordsReady, this,
            [&](const QVector<RequestRecord>& b) { records += int(b.size()); });
        QSignalSpy started(&replay, &JsonlReplay::runStarted);
        // The same file replayed beside it at 1x, unpaused: once that one has passed the request's
        // end and delivered it, the paused one would have too, had its run clock moved.
        const auto replayedAtOnce = [this, &path] {
            auto control = std::make_unique<JsonlReplay>(path, 1.0);
            auto delivered = std::make_shared<int>(0);
            connect(control.get(), &JsonlReplay::recordsReady, this,
                [delivered](const QVector<RequestRecord>& b) { *delivered += int(b.size()); });
            control->start();
            return std::make_pair(std::move(control), delivered);
        };
        replay.setPaused(true);
        replay.start();
        {
            const auto [control, delivered] = replayedAtOnce();
            QTRY_COMPARE_WITH_TIMEOUT(*delivered, 1, 5000);
        }
        QCOMPARE(started.size(), 0);
        QCOMPARE(records, 0);
        replay.setPaused(false);
        replay.setSpeed(1e-6); // now it would take days
        QVERIFY(started.wait(5000));
        {
            const auto [control, delivered] = replayedAtOnce();
            QTRY_COMPARE_WITH_TIMEOUT(*delivered, 1, 5000);
        }
        QCOMPARE(records, 0);
        QSignalSpy finished(&replay, &JsonlReplay::finished);
        replay.setSpeed(0); // as fast as possible: due at once
        QVERIFY(finished.wait(5000));
        QCOMPARE(records, 1);
    }

    void corruptAndTruncatedLinesAreReportedNotFatal()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray good = QByteArray::fromStdString(toJson(record(QStringLiteral("r"), 1)).dump());
        f.write("{\"type\":\"run\",\"run\":\"r\"}\n" + good + "\n{broken\n" + good + "\n" + good.left(30));
        f.close();
        const Collected c = replay(path, 0);
        QCOMPARE(c.records.size(), std::size_t(2));
        QCOMPARE(c.issueLines, (QList<qint64> { 3, 5 }));
    }

    void missingFileEndsWithAnIssue()
    {
        const Collected c = replay(QStringLiteral("/nonexistent/file.jsonl"), 0);
        QCOMPARE(c.issueLines, (QList<qint64> { 0 }));
        QVERIFY(c.records.empty());
    }
};

QTEST_GUILESS_MAIN(TestJsonlReplay)
#include "tst_jsonlreplay.moc"
