#include "store/jsonlwriter.h"
#include "store/recordjson.h"
#include "store/requestlineparser.h"
#include "store/runfile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

namespace {

RequestRecord sample(qint64 id)
{
    RequestRecord r;
    r.run = QStringLiteral("cfg/arm");
    r.id = id;
    r.tSchedUs = 10 * id;
    r.tSendUs = 10 * id + 3;
    r.ttftUs = 1000 + id;
    r.ttfcUs = 1200 + id;
    r.e2eUs = 9000 + id;
    r.itlUs = { 100, 200, std::int32_t(id) };
    r.inTokens = 128;
    r.outTokens = 4;
    r.outTokensFromUsage = true;
    r.status = 200;
    r.ok = id % 3 != 0;
    r.error = r.ok ? QString() : QStringLiteral("http_500");
    r.errorDetail = r.ok ? QString() : QStringLiteral("boom \"quoted\" 東京");
    r.outputSha256 = "abc123";
    return r;
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestRunFile : public QObject {
    Q_OBJECT
private slots:
    void roundTripsRequestRecords()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.jsonl"));
        JsonlWriter writer;
        QString error;
        QVERIFY(writer.open(path, &error));
        writer.write({ { "type", "experiment" }, { "schema", 1 } });
        writer.write({ { "type", "run" }, { "run", "cfg/arm" }, { "config", "cfg" }, { "arm", "arm" } });
        for (qint64 i = 0; i < 20; ++i)
            writer.write(toJson(sample(i)));
        writer.write({ { "type", "server" }, { "run", "cfg/arm" }, { "t_us", 5 }, { "running", 3 } });
        writer.write({ { "type", "summary" }, { "run", "cfg/arm" }, { "ok", 13 } });
        writer.close();

        RunFile file;
        QVERIFY(readRunFile(path, &file, &error));
        QVERIFY(file.issues.empty());
        QCOMPARE(file.runs.size(), std::size_t(1));
        const RunData& run = file.runs.front();
        QCOMPARE(run.config, QStringLiteral("cfg"));
        QCOMPARE(run.arm, QStringLiteral("arm"));
        QCOMPARE(run.summary["ok"].get<int>(), 13);
        QCOMPARE(run.requests.size(), std::size_t(20));
        for (qint64 i = 0; i < 20; ++i) {
            const RequestRecord& a = run.requests[std::size_t(i)];
            const RequestRecord b = sample(i);
            QCOMPARE(a.id, b.id);
            QCOMPARE(a.tSchedUs, b.tSchedUs);
            QCOMPARE(a.tSendUs, b.tSendUs);
            QCOMPARE(a.ttftUs, b.ttftUs);
            QCOMPARE(a.ttfcUs, b.ttfcUs);
            QCOMPARE(a.e2eUs, b.e2eUs);
            QCOMPARE(a.itlUs, b.itlUs);
            QCOMPARE(a.outTokens, b.outTokens);
            QCOMPARE(a.outTokensFromUsage, b.outTokensFromUsage);
            QCOMPARE(a.ok, b.ok);
            QCOMPARE(a.error, b.error);
            QCOMPARE(a.errorDetail, b.errorDetail);
            QCOMPARE(a.outputSha256, b.outputSha256);
        }
    }

    void fastRequestParserAgreesWithTheDomPath_data()
    {
        QTest::addColumn<QByteArray>("line");
        auto dumped = [](const RequestRecord& r) { return QByteArray::fromStdString(toJson(r).dump()); };
        QTest::newRow("ok") << dumped(sample(1));
        QTest::newRow("error with detail") << dumped(sample(3));
        RequestRecord probe = sample(4);
        probe.probe = QStringLiteral("ja-01");
        probe.probeRepeat = 2;
        probe.outputText = QStringLiteral("東京 \"quoted\"\nİstanbul").toUtf8();
        probe.reasoningText = "think";
        probe.reasoningSha256 = "abc";
        QTest::newRow("probe with texts") << dumped(probe);
        RequestRecord bare = sample(5);
        bare.ttftUs = bare.ttfcUs = bare.tWireUs = -1; // written as null
        bare.itlUs.clear();
        QTest::newRow("nulls and empty itl") << dumped(bare);
        QTest::newRow("hand-written, minimal")
            << QByteArray(R"({"type":"request","run":"r","id":7,"t_send_us":5,"ok":true,"ttft_us":12.9})");
        QTest::newRow("hand-written probe without repeat")
            << QByteArray(R"({"ok":false,"probe":"p","type":"request","run":"r","id":7,"t_send_us":5})");
    }
    void fastRequestParserAgreesWithTheDomPath()
    {
        QFETCH(QByteArray, line);
        QString error;
        const std::optional<RequestRecord> dom = requestFromJson(nlohmann::json::parse(line.toStdString()), &error);
        const std::optional<RequestRecord> fast = parseRequestLine(line);
        QVERIFY(dom && fast);
        QCOMPARE(toJson(*fast).dump(), toJson(*dom).dump()); // every written field
        QCOMPARE(fast->tSchedUs, dom->tSchedUs);
        QCOMPARE(fast->probeRepeat, dom->probeRepeat);
    }

    void fastRequestParserLeavesOddLinesToTheDomPath()
    {
        for (const char* line : { R"({"type":"run","run":"r"})", R"({"type":"request","run":"r","id":1})",
                 R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,"extra":{"nested":1}})",
                 R"({"type":"request","run":5,"id":1,"t_send_us":1,"ok":true})", R"({"type":"request",)" })
            QVERIFY2(!parseRequestLine(QByteArray(line)), line);
    }

    void reportsCorruptLinesByNumberAndKeepsGoing()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.jsonl"));
        const QByteArray good = QByteArray::fromStdString(toJson(sample(1)).dump());
        writeFile(path,
            "{\"type\":\"run\",\"run\":\"cfg/arm\"}\n" + good + "\nthis is not json\n{\"no_type\":1}\n"
                + "{\"type\":\"request\",\"run\":\"cfg/arm\"}\n" + "{\"type\":\"future_kind\",\"x\":1}\n" + good
                + "\n");
        RunFile file;
        QString error;
        QVERIFY(readRunFile(path, &file, &error));
        QCOMPARE(file.issues.size(), std::size_t(3));
        QCOMPARE(file.issues[0].line, qint64(3));
        QCOMPARE(file.issues[1].line, qint64(4));
        QCOMPARE(file.issues[2].line, qint64(5)); // a request line without its required fields
        QVERIFY(!file.truncated);
        QCOMPARE(file.runs.front().requests.size(), std::size_t(2));
    }

    void truncatedLastLineIsReportedAndSkipped()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("killed.jsonl"));
        const QByteArray good = QByteArray::fromStdString(toJson(sample(1)).dump());
        writeFile(path, good + "\n" + good + "\n" + good.left(good.size() / 2));
        RunFile file;
        QString error;
        QVERIFY(readRunFile(path, &file, &error));
        QVERIFY(file.truncated);
        QCOMPARE(file.issues.size(), std::size_t(1));
        QCOMPARE(file.issues[0].line, qint64(3));
        QCOMPARE(file.runs.front().requests.size(), std::size_t(2));
    }

    void missingFileIsAnError()
    {
        RunFile file;
        QString error;
        QVERIFY(!readRunFile(QStringLiteral("/nonexistent/x.jsonl"), &file, &error));
        QVERIFY(error.contains(QStringLiteral("cannot read")));
    }
};

QTEST_GUILESS_MAIN(TestRunFile)
#include "tst_runfile.moc"
