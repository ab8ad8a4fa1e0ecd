#include "store/jsonlwriter.h"
#include "store/recordjson.h"
#include "store/runfile.h"
#include "store/runline.h"

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
    r.outputSha256 = QByteArray(32, '\xaa'); // raw; the file holds 64 hex digits
    if (id >= 6) // headers from the sixth on: the loaded table holds them relative to the send
        r.tHeadersUs = r.tSendUs + (id == 19 ? 3'000'000'000LL : 400 + id); // 19: past 32 bits, kept wide
    if (id >= 7 && id % 3 == 1) // llama.cpp timings from the seventh: the table's timings start mid-segment
        r.server = { 12.5 + double(id), 40.25, int(100 + id), 4, id % 2 ? 0 : 16 };
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
        QCOMPARE(run.summary.value().ok.value(), qint64(13));
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
            QCOMPARE(a.tHeadersUs, b.tHeadersUs);
            QVERIFY2(a.server == b.server, qPrintable(QString::number(i)));
        }
        QCOMPARE(run.requests[19].tHeadersUs, qint64(193 + 3'000'000'000LL));
        QCOMPARE(run.requests[10].server.promptMs, 22.5);
        QVERIFY(!run.requests[9].server.any());
    }

    void requestLinesRoundTrip_data()
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
        probe.reasoningSha256 = QByteArray(32, '\xff');
        QTest::newRow("probe with texts") << dumped(probe);
        RequestRecord bare = sample(5);
        bare.ttftUs = bare.ttfcUs = bare.tWireUs = -1; // written as null
        bare.itlUs.clear();
        QTest::newRow("nulls and empty itl") << dumped(bare);
        QTest::newRow("llama.cpp headers and timings") << dumped(sample(10));
        RequestRecord partial = sample(6);
        partial.server.promptMs = 0.125; // the other timings absent: written as null
        QTest::newRow("partial timings") << dumped(partial);
    }
    void requestLinesRoundTrip()
    {
        QFETCH(QByteArray, line);
        std::vector<RunFileIssue> issues;
        const RunLine decoded = readRunLine(line, 1, issues);
        QVERIFY(issues.empty());
        QCOMPARE(int(decoded.kind), int(RunLine::Kind::Request));
        QCOMPARE(toJson(decoded.request).dump(), nlohmann::json::parse(line.toStdString()).dump()); // every field
    }

    // Both paths of the reader (the flat SAX one and the document one, taken
    // for a request written with spaces) read the same record.
    void spacedRequestLinesReadTheSame()
    {
        const std::string flat = toJson(sample(2)).dump();
        const std::string spaced = toJson(sample(2)).dump(1);
        std::vector<RunFileIssue> issues;
        const RunLine a = readRunLine(QByteArrayView(flat.data(), qsizetype(flat.size())), 1, issues);
        const RunLine b = readRunLine(QByteArrayView(spaced.data(), qsizetype(spaced.size())), 2, issues);
        QVERIFY(issues.empty());
        QCOMPARE(toJson(b.request).dump(), toJson(a.request).dump());
    }

    void requestReadingRule_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("issue");
        const int request = int(RunLine::Kind::Request);
        const int skipped = int(RunLine::Kind::Skipped);
        QTest::newRow("minimal") << QByteArray(R"({"type":"request","run":"r","id":7,"t_send_us":5,"ok":true})")
                                 << request << QString();
        QTest::newRow("unknown nested field ignored")
            << QByteArray(R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,"extra":{"nested":[1,{}]}})")
            << request << QString();
        QTest::newRow("string where an integer belongs: dropped")
            << QByteArray(R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,"ttft_us":"12"})") << request
            << QStringLiteral("request.ttft_us: expected an integer, got a string; left empty");
        QTest::newRow("fraction: dropped")
            << QByteArray(R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,"ttft_us":12.9})") << request
            << QStringLiteral("request.ttft_us: expected an integer, got a number with a fraction; left empty");
        QTest::newRow("status out of range")
            << QByteArray(R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,"status":12345})") << request
            << QStringLiteral("request.status: 12345 is out of range (0 to 999); left empty");
        QTest::newRow("bad itl element")
            << QByteArray(R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,"itl_us":[1,"x",3]})")
            << request << QStringLiteral("request.itl_us[1]: expected an integer from 0 to 2147483647, got a string");
        QTest::newRow("run is a number") << QByteArray(R"({"type":"request","run":5,"id":1,"t_send_us":1,"ok":true})")
                                         << skipped
                                         << QStringLiteral(
                                                "request.run: expected a string, got an integer; line skipped");
        QTest::newRow("missing t_send_us") << QByteArray(R"({"type":"request","run":"r","id":1,"ok":true})") << skipped
                                           << QStringLiteral("request.t_send_us: missing");
        QTest::newRow("huge id") << QByteArray(R"({"type":"request","run":"r","id":1e300,"t_send_us":1,"ok":true})")
                                 << skipped << QStringLiteral("request.id: expected an integer");
        const QByteArray base = R"({"type":"request","run":"r","id":1,"t_send_us":1,"ok":true,)";
        QTest::newRow("headers before the send are still read")
            << base + R"("t_headers_us":0})" << request << QString();
        QTest::newRow("negative headers")
            << base + R"("t_headers_us":-3})" << request << QStringLiteral("request.t_headers_us: -3 is out of range");
        QTest::newRow("server is a number")
            << base + R"("server":5})" << request
            << QStringLiteral("request.server: expected an object, got an integer; left empty");
        QTest::newRow("server is an array")
            << base + R"("server":[1]})" << request
            << QStringLiteral("request.server: expected an object, got an array; left empty");
        QTest::newRow("server ms as a string")
            << base + R"("server":{"prompt_ms":"12"}})" << request
            << QStringLiteral("request.server.prompt_ms: expected a number >= 0, got a string; left empty");
        QTest::newRow("server ms negative") << base + R"("server":{"predicted_ms":-0.5}})" << request
                                            << QStringLiteral("request.server.predicted_ms: -0.5 is out of range");
        QTest::newRow("server count with a fraction")
            << base + R"("server":{"prompt_n":1.5}})" << request
            << QStringLiteral("request.server.prompt_n: expected an integer >= 0, got a number with a fraction");
        QTest::newRow("server count as an array")
            << base + R"("server":{"cache_n":[1]}})" << request
            << QStringLiteral("request.server.cache_n: expected an integer >= 0, got an array; left empty");
        QTest::newRow("server count out of range") << base + R"("server":{"predicted_n":4294967296}})" << request
                                                   << QStringLiteral("request.server.predicted_n: 4.29497e+09 is out");
        QTest::newRow("server source as a number")
            << base + R"("server":{"source":1}})" << request
            << QStringLiteral("request.server.source: expected a string, got a number; left empty");
        QTest::newRow("server with unknown keys")
            << base + R"("server":{"prompt_per_second":"x","draft":{"n":[1]},"source":"llamacpp-timings"}})" << request
            << QString();
        QTest::newRow("truncated") << QByteArray(R"({"type":"request",)") << skipped
                                   << QStringLiteral("not valid JSON");
    }
    void requestReadingRule()
    {
        QFETCH(QByteArray, line);
        QFETCH(int, kind);
        QFETCH(QString, issue);
        std::vector<RunFileIssue> issues;
        const RunLine decoded = readRunLine(line, 9, issues);
        QCOMPARE(int(decoded.kind), kind);
        if (issue.isEmpty()) {
            QVERIFY(issues.empty());
            return;
        }
        QVERIFY(!issues.empty());
        QCOMPARE(issues.front().line, qint64(9));
        QVERIFY2(issues.front().message.startsWith(issue), qPrintable(issues.front().message));
    }

    // A wrong timing is dropped alone: the record keeps the rest of the object and what follows it.
    void wrongTimingKeepsTheOthers()
    {
        const QByteArray line = R"({"type":"request","run":"r","id":1,"t_send_us":10,"ok":true,)"
                                R"("server":{"prompt_ms":"x","predicted_ms":40.5,"prompt_n":7,"cache_n":true},)"
                                R"("t_headers_us":250,"ttft_us":900})";
        std::vector<RunFileIssue> issues;
        const RunLine decoded = readRunLine(line, 4, issues);
        QCOMPARE(int(decoded.kind), int(RunLine::Kind::Request));
        QCOMPARE(issues.size(), std::size_t(2));
        QVERIFY(issues[0].message.startsWith(QStringLiteral("request.server.prompt_ms:")));
        QVERIFY(issues[1].message.startsWith(
            QStringLiteral("request.server.cache_n: expected an integer >= 0, got a boolean")));
        QCOMPARE(issues[1].line, qint64(4));
        const ServerTimings expected { -1, 40.5, 7, -1, -1 };
        QVERIFY(decoded.request.server == expected);
        QCOMPARE(decoded.request.tHeadersUs, qint64(250));
        QCOMPARE(decoded.request.ttftUs, qint64(900));
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
        QCOMPARE(file.issues.size(), std::size_t(5));
        QCOMPARE(file.issues[0].line, qint64(3));
        QCOMPARE(file.issues[1].line, qint64(4));
        for (std::size_t i = 2; i < 5; ++i) // a request without id, t_send_us and ok: one issue each
            QCOMPARE(file.issues[i].line, qint64(5));
        QVERIFY(file.issues[2].message.contains(QStringLiteral("request.id: missing")));
        QVERIFY(!file.truncated);
        QCOMPARE(file.runs.front().requests.size(), std::size_t(2));
    }

    // A 200 KB request line nested 100,000 deep made `knobscope report` overflow
    // the stack (found by running tests/fuzz/fuzz_runline on a crafted input).
    void deeplyNestedLinesAreSkipped_data()
    {
        QTest::addColumn<QByteArray>("prefix");
        QTest::addColumn<int>("depth");
        QTest::addColumn<bool>("skipped");
        const QByteArray request = R"({"type": "request", "run": "a", "id": 1, "t_send_us": 0, "ok": true, "x": )";
        const QByteArray summary = R"({"type":"summary","run":"a","x":)";
        QTest::newRow("request, very deep") << request << 100000 << true;
        QTest::newRow("summary, very deep") << summary << 100000 << true;
        QTest::newRow("request, just too deep") << request << kMaxNesting << true;
        QTest::newRow("request, at the limit") << request << kMaxNesting - 1 << false;
        QTest::newRow("summary, at the limit") << summary << kMaxNesting - 1 << false;
    }
    void deeplyNestedLinesAreSkipped()
    {
        QFETCH(QByteArray, prefix);
        QFETCH(int, depth);
        QFETCH(bool, skipped);
        const QByteArray line = prefix + QByteArray(depth, '[') + QByteArray(depth, ']') + '}';
        std::vector<RunFileIssue> issues;
        const RunLine decoded = readRunLine(line, 7, issues);
        QCOMPARE(decoded.kind == RunLine::Kind::Skipped, skipped);
        if (skipped) {
            QCOMPARE(issues.size(), std::size_t(1));
            QCOMPARE(issues.front().line, qint64(7));
            QVERIFY2(issues.front().message.startsWith(QStringLiteral("nested deeper than")),
                qPrintable(issues.front().message));
        }
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

    // The experiment line's spec and name, whatever the line is: named, nameless, spec-less, or skipped
    // (a wrong-typed `type`), when the pages and `export` title their charts with it.
    void experimentSpecAndName_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("hasSpec");
        QTest::newRow("named") << QByteArray(R"({"type":"experiment","spec":{"name":"study"}})") << "study" << true;
        QTest::newRow("nameless") << QByteArray(R"({"type":"experiment","spec":{"arms":[]}})") << "fallback" << true;
        QTest::newRow("empty name") << QByteArray(R"({"type":"experiment","spec":{"name":""}})") << "fallback" << true;
        QTest::newRow("name a number") << QByteArray(R"({"type":"experiment","spec":{"name":7}})") << "fallback"
                                       << false; // dropped by the reader: the spec is left empty
        QTest::newRow("spec an array") << QByteArray(R"({"type":"experiment","spec":[1]})") << "fallback" << false;
        QTest::newRow("no spec") << QByteArray(R"({"type":"experiment","schema":1})") << "fallback" << false;
        for (const char* type : { "42", "[\"experiment\"]", "null", "{}", "true" })
            QTest::newRow(type) << (QByteArray(R"({"type":)") + type + R"(,"spec":{"name":"study"}})") << "fallback"
                                << false;
        QTest::newRow("no experiment line") << QByteArray() << "fallback" << false;
    }
    void experimentSpecAndName()
    {
        QFETCH(QByteArray, line);
        QFETCH(QString, name);
        QFETCH(bool, hasSpec);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.jsonl"));
        writeFile(path, line + "\n{\"type\":\"run\",\"run\":\"cfg/arm\"}\n");
        RunFile file;
        QString error;
        QVERIFY(readRunFile(path, &file, &error));
        QCOMPARE(file.runs.size(), std::size_t(1));
        QVERIFY(file.spec().is_object());
        QCOMPARE(!file.spec().empty(), hasSpec);
        QCOMPARE(file.experimentName(QStringLiteral("fallback")), name);
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
