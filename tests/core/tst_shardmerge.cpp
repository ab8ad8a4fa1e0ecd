#include "shard/shardmerge.h"

#include "metrics/percentiles.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace ks;
using nlohmann::json;

namespace {

struct PartRequest {
    qint64 id;
    qint64 sendUs;
    qint64 ttftUs;
    bool ok = true;
};

json experimentLine(int concurrency = 4)
{
    return { { "type", "experiment" }, { "schema", 1 }, { "tool", "knobscope test" },
        { "started_at", "2026-11-30T18:00:00.000Z" },
        { "spec",
            { { "name", "scale" }, { "target", { { "base_url", "http://10.0.0.5:8000" } } },
                { "arms", { { { "name", "stress" }, { "concurrency", concurrency } } } } } } };
}

json runLine(const char* run, int index, int count, qint64 t0UnixUs, const char* startAt = "2026-11-30T18:00:00.000Z")
{
    json shard = { { "index", index }, { "count", count }, { "host", "host-" + std::to_string(index) } };
    if (startAt)
        shard["start_at"] = startAt;
    json line = { { "type", "run" }, { "run", run }, { "config", "prod" }, { "arm", "stress" },
        { "t0_wall", "2026-11-30T18:00:00.000Z" }, { "t0_monotonic_us", 5 }, { "knobs", json::object() },
        { "model", "m" }, { "shard", shard } };
    if (t0UnixUs >= 0)
        line["t0_unix_us"] = t0UnixUs;
    return line;
}

json requestLine(const char* run, const PartRequest& r)
{
    return { { "type", "request" }, { "run", run }, { "id", r.id }, { "t_sched_us", r.sendUs },
        { "t_send_us", r.sendUs }, { "t_headers_us", r.sendUs + 700 },
        { "ttft_us", r.ok ? json(r.ttftUs) : json(nullptr) },
        { "e2e_us", r.ok ? json(r.ttftUs + 10000) : json(nullptr) }, { "itl_us", json::array() }, { "in_tokens", 8 },
        { "out_tokens", r.ok ? 2 : 0 }, { "status", r.ok ? 200 : 500 }, { "ok", r.ok },
        { "error", r.ok ? json(nullptr) : json("http_500") } };
}

json summaryLine(const char* run, double p50)
{
    return { { "type", "summary" }, { "run", run }, { "config", "prod" }, { "arm", "stress" }, { "requests", 1 },
        { "ok", 1 }, { "errors", 0 }, { "ttft_ms", { { "p50", p50 } } }, { "gentle", false }, { "status", "completed" },
        { "client",
            { { "loop_lag_p99_ms", 1.5 }, { "cpu_utilisation", 0.2 }, { "cores", 2 }, { "client_bound", false },
                { "connect_failures", 0 } } },
        { "server", { { "max_waiting", 3 }, { "max_running", 8 }, { "samples", 4 } } } };
}

class Parts {
public:
    QString write(const QString& name, const std::vector<json>& lines)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        for (const json& line : lines)
            file.write(QByteArray::fromStdString(line.dump()) + '\n');
        return path;
    }
    std::vector<ShardPart> read(const QStringList& paths)
    {
        std::vector<ShardPart> parts(std::size_t(paths.size()));
        for (qsizetype i = 0; i < paths.size(); ++i) {
            QString error;
            if (!readShardPart(paths[i], &parts[std::size_t(i)], &error))
                qWarning("%s", qPrintable(error));
        }
        return parts;
    }

private:
    QTemporaryDir m_dir;
};

// Shard 0: three requests (TTFT 100, 200, 300 ms) plus a probe run of its own
// and a server sample; shard 1: two requests (400, 500 ms) and an error,
// started 250 ms later on the wall clock.
std::vector<json> shardZero()
{
    json probeRun = runLine("prod/probes", 0, 2, 2'000'000);
    probeRun["probes"] = { { "set", "builtin:quality-50" }, { "restart", 0 } };
    return { experimentLine(), runLine("prod/stress", 0, 2, 1'000'000), requestLine("prod/stress", { 0, 0, 100'000 }),
        requestLine("prod/stress", { 1, 1'000, 200'000 }), requestLine("prod/stress", { 2, 500'000, 300'000 }),
        { { "type", "server" }, { "run", "prod/stress" }, { "t_us", 250'000 }, { "running", 4 }, { "waiting", 1 } },
        summaryLine("prod/stress", 200), probeRun, requestLine("prod/probes", { 0, 0, 50'000 }) };
}

std::vector<json> shardOne()
{
    return { experimentLine(), runLine("prod/stress", 1, 2, 1'250'000), requestLine("prod/stress", { 0, 0, 400'000 }),
        requestLine("prod/stress", { 1, 2'000, 500'000 }), requestLine("prod/stress", { 2, 3'000, 0, false }),
        summaryLine("prod/stress", 450) };
}

const json* lineOf(const ShardMerge& m, const char* type, const char* run)
{
    for (const json& line : m.lines) {
        if (line.value("type", std::string()) == type && line.value("run", std::string()) == run)
            return &line;
    }
    return nullptr;
}

} // namespace

class TestShardMerge : public QObject {
    Q_OBJECT
private slots:
    void mergesTwoShardsOnOneTimeLine()
    {
        Parts files;
        // Given in the "wrong" order: the index decides, not the argument order.
        const QString one = files.write(QStringLiteral("part-1.jsonl"), shardOne());
        const QString zero = files.write(QStringLiteral("part-0.jsonl"), shardZero());
        const ShardMerge m = mergeShards(files.read({ one, zero }));
        QCOMPARE(m.error, QString());
        QCOMPARE(m.runs.size(), std::size_t(2));
        QCOMPARE(m.runs[0].run, QStringLiteral("prod/stress"));
        QCOMPARE(m.runs[0].requests, 6);
        QCOMPARE(m.runs[0].startSkewUs, Q_INT64_C(250000));
        QCOMPARE(m.runs[1].run, QStringLiteral("prod/probes")); // shard 0's alone
        QCOMPARE(m.runs[1].requests, 1);
        QCOMPARE(m.runs[0].parts, 2);
        QCOMPARE(m.runs[1].parts, 1);

        std::vector<std::pair<qint64, qint64>> sends; // (t_send_us, id)
        std::set<qint64> ids;
        for (const json& line : m.lines) {
            if (line["type"] == "request" && line["run"] == "prod/stress") {
                sends.push_back({ line["t_send_us"].get<qint64>(), line["id"].get<qint64>() });
                ids.insert(line["id"].get<qint64>());
                // The headers move with the send: one time line.
                QCOMPARE(line["t_headers_us"].get<qint64>() - line["t_send_us"].get<qint64>(), Q_INT64_C(700));
            }
        }
        QCOMPARE(ids.size(), std::size_t(6)); // unique: id * 2 + index
        QCOMPARE(ids, (std::set<qint64> { 0, 1, 2, 3, 4, 5 }));
        // Shard 1 started 250 ms later: its sends move by 250 000 µs; the records come in send order.
        const std::vector<std::pair<qint64, qint64>> expected { { 0, 0 }, { 1'000, 2 }, { 250'000, 1 }, { 252'000, 3 },
            { 253'000, 5 }, { 500'000, 4 } };
        QCOMPARE(sends, expected);

        const json* run = lineOf(m, "run", "prod/stress");
        QVERIFY(run);
        QCOMPARE((*run)["t0_unix_us"].get<qint64>(), Q_INT64_C(1000000));
        QCOMPARE((*run)["merged"]["start_skew_us"].get<qint64>(), Q_INT64_C(250000));
        QCOMPARE((*run)["merged"]["shards"].get<int>(), 2);
        QVERIFY((*run)["merged"]["hosts"] == json({ "host-0", "host-1" }));
        QVERIFY(!run->contains("shard"));
        QVERIFY(!run->contains("t0_monotonic_us"));

        // Recomputed from the five successful records: 100..500 ms, p50 300, p90 460
        // (linear interpolation); the average of the parts' p50s would be 325.
        const json* summary = lineOf(m, "summary", "prod/stress");
        QVERIFY(summary);
        QCOMPARE((*summary)["requests"].get<int>(), 6);
        QCOMPARE((*summary)["ok"].get<int>(), 5);
        QCOMPARE((*summary)["errors_by_reason"]["http_500"].get<int>(), 1);
        QCOMPARE((*summary)["ttft_ms"]["p50"].get<double>(), 300.0);
        QCOMPARE((*summary)["ttft_ms"]["p90"].get<double>(), 460.0);
        QCOMPARE((*summary)["ttft_ms"]["max"].get<double>(), 500.0);
        // On the aligned time line three requests overlap (at 500 ms); unaligned, four would (at 2 ms).
        QCOMPARE((*summary)["peak_in_flight"].get<int>(), 3);
        QCOMPARE((*summary)["client"]["shards"].size(), std::size_t(2));
        QCOMPARE((*summary)["status"].get<std::string>(), std::string("completed"));

        const json* sample = lineOf(m, "server", "prod/stress");
        QVERIFY(sample);
        QCOMPARE((*sample)["t_us"].get<qint64>(), Q_INT64_C(250000)); // shard 0 started first: no shift
        QCOMPARE(m.lines.front()["type"].get<std::string>(), std::string("experiment"));
        QCOMPARE(m.lines.front()["merged_from"].size(), std::size_t(2));
    }

    void refusesPartsThatDoNotBelongTogether_data()
    {
        QTest::addColumn<int>("variant");
        QTest::addColumn<QString>("message");
        QTest::newRow("duplicate index") << 0 << QStringLiteral("are both shard 0/2");
        QTest::newRow("missing index") << 1 << QStringLiteral("shard 1/2 is missing");
        QTest::newRow("other shard count") << 2 << QStringLiteral("is of 2 shards");
        QTest::newRow("other experiment") << 3 << QStringLiteral("different experiments");
        QTest::newRow("other invocation") << 4 << QStringLiteral("different invocations");
        QTest::newRow("not a shard") << 5 << QStringLiteral("no shard object");
        QTest::newRow("no wall clock") << 6 << QStringLiteral("no t0_unix_us");
        QTest::newRow("run missing from a shard") << 7 << QStringLiteral("missing from shard 1");
        QTest::newRow("one experiment line unreadable") << 8 << QStringLiteral("different experiments");
    }
    void refusesPartsThatDoNotBelongTogether()
    {
        QFETCH(int, variant);
        QFETCH(QString, message);
        Parts files;
        std::vector<json> zero = shardZero();
        std::vector<json> one = shardOne();
        QStringList paths;
        switch (variant) {
        case 0:
            one[1]["shard"]["index"] = 0;
            break;
        case 1:
            break; // only part 0 given below
        case 2:
            one[1]["shard"]["count"] = 3;
            break;
        case 3:
            one[0] = experimentLine(8);
            break;
        case 4:
            one[1]["shard"]["start_at"] = "2026-11-30T19:00:00.000Z";
            break;
        case 5:
            one[1].erase("shard");
            break;
        case 6:
            one[1].erase("t0_unix_us");
            break;
        case 7:
            for (json& line : one)
                line["run"] = "prod/other";
            one[0].erase("run");
            break;
        case 8:
            one[0]["type"] = 42; // skipped by the reader: this part has no spec to compare
            break;
        }
        paths << files.write(QStringLiteral("part-0.jsonl"), zero);
        if (variant != 1)
            paths << files.write(QStringLiteral("part-1.jsonl"), one);
        const ShardMerge m = mergeShards(files.read(paths));
        QVERIFY2(m.error.contains(message), qPrintable(m.error));
        QVERIFY(m.lines.empty());
    }

    // Both parts lost their experiment line (skipped as unreadable): they agree, and the merged file still
    // starts with an experiment line.
    void mergesPartsWithoutAnExperimentLine()
    {
        Parts files;
        std::vector<json> zero = shardZero();
        std::vector<json> one = shardOne();
        zero[0]["type"] = json::array({ "experiment" });
        one[0]["type"] = nullptr;
        const ShardMerge m = mergeShards(
            files.read({ files.write(QStringLiteral("a.jsonl"), zero), files.write(QStringLiteral("b.jsonl"), one) }));
        QCOMPARE(m.error, QString());
        QCOMPARE(m.runs.size(), std::size_t(2));
        QCOMPARE(m.lines.front()["type"].get<std::string>(), std::string("experiment"));
        QCOMPARE(m.lines.front()["merged_from"].size(), std::size_t(2));
        QVERIFY(!m.lines.front().contains("spec"));
    }

    void keepsAStoppedShardsRecordsAndSaysSo()
    {
        Parts files;
        std::vector<json> one = shardOne();
        one.pop_back(); // killed before its summary
        const ShardMerge m = mergeShards(files.read(
            { files.write(QStringLiteral("a.jsonl"), shardZero()), files.write(QStringLiteral("b.jsonl"), one) }));
        QCOMPARE(m.error, QString());
        const json* summary = lineOf(m, "summary", "prod/stress");
        QVERIFY(summary);
        QCOMPARE((*summary)["requests"].get<int>(), 6);
        QCOMPARE((*summary)["status"].get<std::string>(), std::string("incomplete"));
        QVERIFY((*summary)["warnings"].dump().find("shard 1: the part has no summary line") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestShardMerge)
#include "tst_shardmerge.moc"
