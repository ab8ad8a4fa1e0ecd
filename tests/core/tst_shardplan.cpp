#include "shard/shardplan.h"

#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json externalSpec()
{
    return { { "name", "scale" }, { "target", { { "base_url", "http://10.0.0.5:8000" } } },
        { "configs", { { { "label", "prod" }, { "model", "m" } } } },
        { "arms",
            { { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 65 }, { "requests", 258 },
                  { "warmup", 5 } },
                { { "name", "open" }, { "mode", "rate" }, { "rate", 9.0 }, { "duration_s", 30 } } } },
        { "prompts", { { "source", "synthetic" }, { "input_tokens", 64 }, { "seed", 7 } } },
        { "probes", { { "repeats", 1 } } } };
}

ExperimentSpec parsed(const json& doc)
{
    auto result = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    if (auto* spec = std::get_if<ExperimentSpec>(&result))
        return *spec;
    return {};
}

} // namespace

class TestShardPlan : public QObject {
    Q_OBJECT
private slots:
    void parsesShardIds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("index");
        QTest::addColumn<int>("count");
        QTest::newRow("first") << QStringLiteral("0/2") << 0 << 2;
        QTest::newRow("last") << QStringLiteral("3/4") << 3 << 4;
        QTest::newRow("single") << QStringLiteral("0/1") << 0 << 1;
        QTest::newRow("index too big") << QStringLiteral("2/2") << -1 << -1;
        QTest::newRow("no count") << QStringLiteral("1") << -1 << -1;
        QTest::newRow("negative") << QStringLiteral("-1/2") << -1 << -1;
        QTest::newRow("zero shards") << QStringLiteral("0/0") << -1 << -1;
        QTest::newRow("words") << QStringLiteral("a/b") << -1 << -1;
    }
    void parsesShardIds()
    {
        QFETCH(QString, text);
        QFETCH(int, index);
        QFETCH(int, count);
        QString error;
        const auto shard = parseShardId(text, &error);
        QCOMPARE(shard.has_value(), index >= 0);
        if (shard) {
            QCOMPARE(shard->index, index);
            QCOMPARE(shard->count, count);
        } else {
            QVERIFY(error.contains(QStringLiteral("--shard")));
        }
    }

    void sharesSumToTheWholeWithRemaindersFirst()
    {
        // 65 over 4: 17 16 16 16; 3 over 4: 1 1 1 0.
        const int expected65[] = { 17, 16, 16, 16 };
        const int expected3[] = { 1, 1, 1, 0 };
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(shardShare(65, { i, 4 }), expected65[i]);
            QCOMPARE(shardShare(3, { i, 4 }), expected3[i]);
        }
        for (int total : { 0, 1, 63, 64, 1000003 }) {
            for (int n : { 1, 2, 3, 7 }) {
                int sum = 0;
                for (int i = 0; i < n; ++i)
                    sum += shardShare(total, { i, n });
                QCOMPARE(sum, total);
            }
        }
    }

    void splitsEveryArm()
    {
        ExperimentSpec zero = parsed(externalSpec());
        ExperimentSpec one = parsed(externalSpec());
        QCOMPARE(applyShard(zero, { 0, 2 }), QString());
        QCOMPARE(applyShard(one, { 1, 2 }), QString());
        QCOMPARE(zero.arms[0].concurrency, 33);
        QCOMPARE(one.arms[0].concurrency, 32);
        QCOMPARE(zero.arms[0].requests, 129);
        QCOMPARE(one.arms[0].requests, 129);
        QCOMPARE(zero.arms[0].warmup, 3);
        QCOMPARE(one.arms[0].warmup, 2);
        QCOMPARE(zero.arms[1].rate, 4.5);
        QCOMPARE(one.arms[1].rate, 4.5);
        QCOMPARE(one.arms[1].durationS, 30.0); // duration is each shard's, not split
        // Probes on shard 0 only; other shards draw other prompts and arrivals.
        QVERIFY(zero.probes.has_value());
        QVERIFY(!one.probes.has_value());
        QCOMPARE(zero.seed, quint64(7));
        QCOMPARE(one.seed, quint64(8));
        // The experiment line keeps the whole spec, which merge compares.
        QVERIFY(one.raw == zero.raw);
        QCOMPARE(one.raw["arms"][0]["concurrency"].get<int>(), 65);
    }

    void refusesWhatCannotBeSharded_data()
    {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<QString>("field");
        json server = externalSpec();
        server["server"] = { { "command", { "knobscope-sim", "--port", "8000" } } };
        QTest::newRow("server") << QByteArray::fromStdString(server.dump()) << QStringLiteral("server:");
        json configs = externalSpec();
        configs["configs"].push_back({ { "label", "other" }, { "model", "m2" } });
        QTest::newRow("two configs") << QByteArray::fromStdString(configs.dump()) << QStringLiteral("configs:");
        json thin = externalSpec();
        thin["arms"][0]["concurrency"] = 2;
        QTest::newRow("too few streams") << QByteArray::fromStdString(thin.dump())
                                         << QStringLiteral("arms[0].concurrency:");
        json few = externalSpec();
        few["arms"][1]["requests"] = 2;
        QTest::newRow("too few requests")
            << QByteArray::fromStdString(few.dump()) << QStringLiteral("arms[1].requests:");
    }
    void refusesWhatCannotBeSharded()
    {
        QFETCH(QByteArray, spec);
        QFETCH(QString, field);
        ExperimentSpec s = parsed(json::parse(spec.toStdString()));
        QVERIFY(!s.configs.empty());
        const QString error = applyShard(s, { 0, 3 });
        QVERIFY2(error.startsWith(field), qPrintable(error));
    }

    void parsesStartTimes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms");
        QTest::newRow("utc") << QStringLiteral("2026-11-30T18:00:00Z") << Q_INT64_C(1796061600000);
        QTest::newRow("no zone means utc") << QStringLiteral("2026-11-30T18:00:00") << Q_INT64_C(1796061600000);
        QTest::newRow("offset") << QStringLiteral("2026-11-30T19:00:00+01:00") << Q_INT64_C(1796061600000);
        QTest::newRow("millis") << QStringLiteral("2026-11-30T18:00:00.250Z") << Q_INT64_C(1796061600250);
        QTest::newRow("epoch") << QStringLiteral("1796061600") << Q_INT64_C(1796061600000);
        QTest::newRow("epoch fraction") << QStringLiteral("1796061600.5") << Q_INT64_C(1796061600500);
        QTest::newRow("garbage") << QStringLiteral("tomorrow") << Q_INT64_C(-1);
        QTest::newRow("too short for epoch") << QStringLiteral("12") << Q_INT64_C(-1);
    }
    void parsesStartTimes()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        QString error;
        const auto at = parseStartAt(text, &error);
        QCOMPARE(at.value_or(-1), ms);
        QCOMPARE(error.isEmpty(), ms >= 0);
    }

    void shardObjectCarriesIdentity()
    {
        const json o = shardObject({ 1, 4 }, QStringLiteral("pod-1"), Q_INT64_C(1796061600000));
        QCOMPARE(o["index"].get<int>(), 1);
        QCOMPARE(o["count"].get<int>(), 4);
        QCOMPARE(o["host"].get<std::string>(), std::string("pod-1"));
        QCOMPARE(o["start_at"].get<std::string>(), std::string("2026-11-30T18:00:00.000Z"));
        QVERIFY(!shardObject({ 0, 1 }, QStringLiteral("h"), std::nullopt).contains("start_at"));
    }
};

QTEST_GUILESS_MAIN(TestShardPlan)
#include "tst_shardplan.moc"
