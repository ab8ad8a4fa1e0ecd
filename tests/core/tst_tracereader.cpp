// Trace files (Mooncake, Azure, knobscope run files) read into compact entries,
// the prompts built from their hash ids, and a trace arm in an experiment spec.
#include "load/loadrunner.h"
#include "metrics/tracelateness.h"
#include "spec/experimentspec.h"
#include "workload/traceprompt.h"
#include "workload/tracereader.h"
#include "workload/workload.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ks;
using nlohmann::json;

namespace {

QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& text)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(text);
    return path;
}

const QByteArray kMooncake = R"({"timestamp": 0, "input_length": 700, "output_length": 5, "hash_ids": [0, 1]}
{"timestamp": 250, "input_length": 1100, "output_length": 7, "hash_ids": [0, 1, 2]}

{"timestamp": 1000, "input_length": 40, "output_length": 3, "hash_ids": []}
{"timestamp": 2500.5, "input_length": 600, "output_length": 9, "hash_ids": [5, 6]}
)";

QString messageOf(const std::variant<TraceIndex, QString>& read)
{
    const auto* error = std::get_if<QString>(&read);
    return error ? *error : QString();
}

int wordCount(const QByteArray& text)
{
    return int(text.split(' ').size());
}

json traceSpecDoc(const QString& tracePath, const json& traceExtra = json::object())
{
    json trace = { { "path", tracePath.toStdString() }, { "format", "mooncake" } };
    trace.update(traceExtra);
    return { { "name", "trace" }, { "target", { { "base_url", "http://127.0.0.1:8000" } } },
        { "configs", json::array({ { { "label", "a" }, { "model", "sim-8b" } } }) },
        { "arms", json::array({ { { "name", "replay" }, { "mode", "trace" }, { "trace", trace } } }) } };
}

QStringList errorsOf(const json& doc)
{
    const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    QStringList out;
    if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
        for (const SpecError& e : *errors)
            out << e.toString();
    return out;
}

} // namespace

class TestTraceReader : public QObject {
    Q_OBJECT
private slots:
    void readsMooncakeRows()
    {
        QTemporaryDir dir;
        auto read = readTrace(writeFile(dir, "t.jsonl", kMooncake), TraceIndex::Format::Mooncake);
        QVERIFY2(std::holds_alternative<TraceIndex>(read), qPrintable(messageOf(read)));
        const TraceIndex& t = std::get<TraceIndex>(read);
        QCOMPARE(t.entries.size(), std::size_t(4));
        QCOMPARE(t.entries[1].offsetUs, qint64(250'000));
        QCOMPARE(t.entries[3].offsetUs, qint64(2'500'500));
        QCOMPARE(t.entries[1].inputLen, 1100);
        QCOMPARE(t.entries[1].outputLen, 7);
        QCOMPARE(t.entries[1].hashCount, quint32(3));
        QCOMPARE(t.hashesOf(t.entries[1])[2], quint64(2));
        QCOMPARE(t.entries[2].hashCount, quint32(0));
    }

    void bundledExampleReads()
    {
        auto read = readTrace(
            QStringLiteral(KNOBSCOPE_RESOURCES "/traces/mooncake-example.jsonl"), TraceIndex::Format::Mooncake);
        QVERIFY2(std::holds_alternative<TraceIndex>(read), qPrintable(messageOf(read)));
        QCOMPARE(std::get<TraceIndex>(read).entries.size(), std::size_t(60));
    }

    void windowKeepsOnlyItsRows()
    {
        QTemporaryDir dir;
        auto read = readTrace(writeFile(dir, "t.jsonl", kMooncake), TraceIndex::Format::Mooncake, 0.2, 1.0);
        QVERIFY(std::holds_alternative<TraceIndex>(read));
        const TraceIndex& t = std::get<TraceIndex>(read);
        QCOMPARE(t.entries.size(), std::size_t(2)); // 250 ms and 1000 ms
        QCOMPARE(t.entries[0].offsetUs, qint64(50'000)); // re-based to the window's start
        QCOMPARE(t.entries[1].offsetUs, qint64(800'000));
        QCOMPARE(t.rowsRead, qint64(4)); // stopped at the first row past the window
        QCOMPARE(t.hashIds.size(), std::size_t(3)); // only the kept rows' ids
    }

    void badRowsNameTheirLine_data()
    {
        QTest::addColumn<QByteArray>("row");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << QByteArray("{oops") << QStringLiteral("line 2: not a JSON object");
        QTest::newRow("no input") << QByteArray(R"({"timestamp": 5, "output_length": 3})")
                                  << QStringLiteral("line 2: \"input_length\"");
        QTest::newRow("bad ids") << QByteArray(
            R"({"timestamp": 5, "input_length": 3, "output_length": 3, "hash_ids": ["x"]})")
                                 << QStringLiteral("line 2: \"hash_ids\"");
        QTest::newRow("backwards") << QByteArray(R"({"timestamp": -1, "input_length": 3, "output_length": 3})")
                                   << QStringLiteral("line 2: \"timestamp\"");
    }

    void badRowsNameTheirLine()
    {
        QFETCH(QByteArray, row);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QByteArray text = R"({"timestamp": 10, "input_length": 3, "output_length": 3})"
                                "\n"
            + row + "\n";
        auto read = readTrace(writeFile(dir, "t.jsonl", text), TraceIndex::Format::Mooncake);
        QVERIFY(std::holds_alternative<QString>(read));
        QVERIFY2(std::get<QString>(read).startsWith(message), qPrintable(messageOf(read)));
    }

    void rowsOutOfOrderFail()
    {
        QTemporaryDir dir;
        const QByteArray text = R"({"timestamp": 10, "input_length": 3, "output_length": 3}
{"timestamp": 5, "input_length": 3, "output_length": 3}
)";
        auto read = readTrace(writeFile(dir, "t.jsonl", text), TraceIndex::Format::Mooncake);
        QVERIFY(std::holds_alternative<QString>(read));
        QVERIFY(std::get<QString>(read).startsWith(QStringLiteral("line 2: earlier")));
    }

    void readsAzureCsv()
    {
        QTemporaryDir dir;
        const QByteArray text = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                "2023-11-16 18:15:46.6805900,374,44\n"
                                "2023-11-16 18:15:50.9951690,396,109\n"
                                "2023-11-16 18:16:01.1000000,879,0\n";
        auto read = readTrace(writeFile(dir, "a.csv", text), TraceIndex::Format::Azure);
        QVERIFY2(std::holds_alternative<TraceIndex>(read), qPrintable(messageOf(read)));
        const TraceIndex& t = std::get<TraceIndex>(read);
        QCOMPARE(t.entries.size(), std::size_t(3));
        QCOMPARE(t.entries[0].offsetUs, qint64(0));
        QCOMPARE(t.entries[1].offsetUs, qint64(4'314'579)); // 50.9951690 - 46.6805900
        QCOMPARE(t.entries[1].inputLen, 396);
        QCOMPARE(t.entries[1].outputLen, 109);
        QCOMPARE(t.entries[2].outputLen, 1); // 0 generated tokens: one requested
        QCOMPARE(t.entries[2].hashCount, quint32(0));

        auto bad
            = readTrace(writeFile(dir, "b.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-13-01 00:00:00,5,5\n"),
                TraceIndex::Format::Azure);
        QVERIFY(std::holds_alternative<QString>(bad));
        QVERIFY(std::get<QString>(bad).startsWith(QStringLiteral("line 2: TIMESTAMP")));
        auto noHeader = readTrace(writeFile(dir, "c.csv", "when,in,out\n"), TraceIndex::Format::Azure);
        QVERIFY(std::holds_alternative<QString>(noHeader));
        QVERIFY(std::get<QString>(noHeader).startsWith(QStringLiteral("line 1:")));
    }

    void azureTimestamps()
    {
        QCOMPARE(parseAzureTimestamp("1970-01-02 00:00:01.5").value_or(-1), qint64(86'401'500'000));
        QCOMPARE(parseAzureTimestamp("1970-01-01 00:00:00").value_or(-1), qint64(0));
        QVERIFY(!parseAzureTimestamp("1970-01-01"));
        QVERIFY(!parseAzureTimestamp("1970-01-01 00:00:0x"));
        QVERIFY(!parseAzureTimestamp("1970-01-01 00:00:00."));
    }

    void readsOneArmOfARunFile()
    {
        QTemporaryDir dir;
        // Records come in completion order; probes and other runs are left out.
        const QByteArray text = R"({"type": "experiment"}
{"type": "request", "run": "a/x", "id": 1, "probe": null, "t_send_us": 90000, "in_tokens": 20, "out_tokens": 4}
{"type": "request", "run": "a/x", "id": 0, "probe": null, "t_send_us": 1000, "in_tokens": 10, "out_tokens": 3}
{"type": "request", "run": "a/probes", "id": 0, "probe": "p1", "t_send_us": 5, "in_tokens": 10, "out_tokens": 3}
{"type": "request", "run": "b/x", "id": 0, "probe": null, "t_send_us": 7, "in_tokens": 10, "out_tokens": 3}
)";
        auto read = readTrace(writeFile(dir, "r.jsonl", text), TraceIndex::Format::Knobscope);
        QVERIFY2(std::holds_alternative<TraceIndex>(read), qPrintable(messageOf(read)));
        const TraceIndex& t = std::get<TraceIndex>(read);
        QCOMPARE(t.runLabel, QStringLiteral("a/x"));
        QCOMPARE(t.entries.size(), std::size_t(2));
        QCOMPARE(t.entries[0].offsetUs, qint64(1000));
        QCOMPARE(t.entries[0].inputLen, 10);
        QCOMPARE(t.entries[1].offsetUs, qint64(90000));
        QCOMPARE(t.entries[1].outputLen, 4);
    }

    void promptsShareTheirBlocks()
    {
        QTemporaryDir dir;
        auto read = readTrace(writeFile(dir, "t.jsonl", kMooncake), TraceIndex::Format::Mooncake);
        const TraceIndex& t = std::get<TraceIndex>(read);
        const QByteArray a = tracePrompt(t, 0, 7);
        const QByteArray b = tracePrompt(t, 1, 7);
        QCOMPARE(wordCount(a), 700);
        QCOMPARE(wordCount(b), 1100);
        QVERIFY(b.startsWith(a)); // ids [0, 1] cut at 700 are the start of [0, 1, 2]
        QCOMPARE(wordCount(tracePrompt(t, 2, 7)), 40);
        QVERIFY(!tracePrompt(t, 3, 7).startsWith(a.left(40))); // other ids, other text
        QVERIFY(tracePrompt(t, 0, 8) != a); // another seed, other text
        for (const QByteArray& word : b.split(' '))
            QVERIFY(word.size() <= 8); // one knobscope-sim token each
        QCOMPARE(traceBlockText(7, 1, 512), traceBlockText(7, 1, 512));
        QVERIFY(traceBlockText(7, 1, 512).startsWith(traceBlockText(7, 1, 100)));
    }

    void workloadSendsTheRecordedLengths()
    {
        QTemporaryDir dir;
        LoadSpec spec;
        spec.model = QStringLiteral("m");
        spec.mode = LoadSpec::Mode::Trace;
        TraceSpec trace;
        trace.speed = 2.0;
        trace.index = std::make_shared<const TraceIndex>(
            std::get<TraceIndex>(readTrace(writeFile(dir, "t.jsonl", kMooncake), TraceIndex::Format::Mooncake)));
        spec.trace = trace;
        QCOMPARE(spec.validate(), QString());
        QVERIFY(!spec.plainPrompts());
        const Workload workload(spec);
        const PromptTurn turn = workload.turn(1, 0, {});
        QCOMPARE(turn.maxTokens, 7);
        QCOMPARE(turn.inTokens, 1100);
        QCOMPARE(wordCount(Workload::completionPrompt(turn)), 1100);
        QCOMPARE(trace.schedule(0, 0), (std::vector<qint64> { 0, 125'000, 500'000, 1'250'250 }));
        QCOMPARE(trace.schedule(2, 0), (std::vector<qint64> { 0, 125'000 }));
        QCOMPARE(trace.schedule(0, 0.6), (std::vector<qint64> { 0, 125'000, 500'000 }));
        QCOMPARE(
            QString::fromStdString(Workload::identity(spec)["source"].get<std::string>()), QStringLiteral("trace"));
        spec.trace->speed = 0;
        QVERIFY(!spec.validate().isEmpty());
    }

    void latenessFigures()
    {
        std::vector<RequestRecord> records(100);
        for (int i = 0; i < 100; ++i) {
            records[std::size_t(i)].tSchedUs = 1000 * i;
            records[std::size_t(i)].tSendUs = 1000 * i + (i < 95 ? 200 : 20'000);
        }
        const json late = traceLateness(records);
        QCOMPARE(late["late_p50_ms"].get<double>(), 0.2);
        QVERIFY(late["late_p99_ms"].get<double>() > 10);
        QCOMPARE(late["late_over_10ms"].get<int>(), 5);
        QVERIFY(traceLateness({}).is_null());

        // A client that fell behind says so, with how far and how many; one that kept up says nothing.
        const std::string warning = traceLatenessWarning(late, 100);
        QVERIFY2(warning.find("fell behind the trace") != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("5 of 100 more than 10 ms late") != std::string::npos, warning.c_str());
        QVERIFY(traceLatenessWarning(json { { "late_p50_ms", 0.2 }, { "late_p99_ms", 4.0 } }, 100).empty());
        QVERIFY(!traceLatenessWarning(json { { "late_p99_ms", std::nan("") } }, 100).empty());
        QCOMPARE(QString::fromStdString(traceLatenessLine(late)),
            QStringLiteral("  trace: sends late p50 0.20 ms, p99 %1 ms, 5 more than 10 ms late")
                .arg(late["late_p99_ms"].get<double>(), 0, 'f', 2));
        QVERIFY(traceLatenessLine(json()).empty());
    }

    void specReadsATraceArm()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "t.jsonl", kMooncake);
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(
            traceSpecDoc(path, { { "speed", 2.0 }, { "start_s", 0.2 }, { "duration_s", 1 } }).dump()));
        QVERIFY2(std::holds_alternative<ExperimentSpec>(parsed),
            qPrintable(errorsOf(traceSpecDoc(path, { { "speed", 2.0 }, { "start_s", 0.2 }, { "duration_s", 1 } }))
                           .join(QLatin1Char('\n'))));
        const ExperimentSpec& spec = std::get<ExperimentSpec>(parsed);
        const LoadSpec load = spec.loadSpec(spec.configs[0], spec.arms[0]);
        QVERIFY(load.mode == LoadSpec::Mode::Trace);
        QVERIFY(load.trace && load.trace->index);
        QCOMPARE(load.trace->index->entries.size(), std::size_t(2));
        QCOMPARE(load.trace->speed, 2.0);
        QCOMPARE(load.validate(), QString());
    }

    void specRejectsBadTraces()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "t.jsonl", kMooncake);
        auto has = [](const QStringList& errors, const char* utf8) {
            const QString text = QString::fromUtf8(utf8);
            return std::any_of(errors.begin(), errors.end(), [&](const QString& e) { return e.contains(text); });
        };
        QStringList e = errorsOf(traceSpecDoc(dir.filePath(QStringLiteral("missing.jsonl"))));
        QVERIFY2(has(e, "arms[0].trace.path: cannot read the trace"), qPrintable(e.join(QLatin1Char('\n'))));
        e = errorsOf(traceSpecDoc(path, { { "format", "otel" } }));
        QVERIFY2(has(e, "arms[0].trace.format: expected \"mooncake\""), qPrintable(e.join(QLatin1Char('\n'))));
        e = errorsOf(traceSpecDoc(path, { { "speed", 0 } }));
        QVERIFY2(
            has(e, "arms[0].trace.speed: expected a number greater than 0"), qPrintable(e.join(QLatin1Char('\n'))));
        e = errorsOf(traceSpecDoc(path, { { "start_s", -1 } }));
        QVERIFY2(has(e, "arms[0].trace.start_s"), qPrintable(e.join(QLatin1Char('\n'))));
        e = errorsOf(traceSpecDoc(path, { { "start_s", 100 } }));
        QVERIFY2(has(e, "no requests in the window"), qPrintable(e.join(QLatin1Char('\n'))));
        json noTrace = traceSpecDoc(path);
        noTrace["arms"][0].erase("trace");
        e = errorsOf(noTrace);
        QVERIFY2(has(e, "arms[0].trace: required"), qPrintable(e.join(QLatin1Char('\n'))));
        json rateWithTrace = traceSpecDoc(path);
        rateWithTrace["arms"][0]["mode"] = "rate";
        rateWithTrace["arms"][0]["rate"] = 1;
        e = errorsOf(rateWithTrace);
        QVERIFY2(has(e, "arms[0].trace: only for"), qPrintable(e.join(QLatin1Char('\n'))));
        const QString bad = writeFile(dir, "bad.jsonl", "{\"timestamp\": 1}\n");
        e = errorsOf(traceSpecDoc(bad));
        QVERIFY2(has(e, "line 1: \"input_length\""), qPrintable(e.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestTraceReader)
#include "tst_tracereader.moc"
