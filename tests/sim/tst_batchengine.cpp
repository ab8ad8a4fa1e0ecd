#include "batchengine.h"
#include "metrics/percentiles.h"
#include "promptblocks.h"
#include "virtualload.h"

#include <QTest>

using namespace kssim;

namespace {

SimProfile flatProfile()
{
    SimProfile p;
    p.name = QStringLiteral("test");
    p.stepBaseUs = 10000;
    p.stepPerSeqUs = 100;
    p.prefillPerTokenUs = 10;
    return p;
}

EngineConfig config(int maxNumSeqs, int budget, qint64 kv = 1'000'000)
{
    EngineConfig c;
    c.profile = flatProfile();
    c.maxNumSeqs = maxNumSeqs;
    c.maxNumBatchedTokens = budget;
    c.kvCacheTokens = kv;
    return c;
}

EngineConfig profileConfig(const char* name, int maxNumSeqs)
{
    EngineConfig c;
    c.profile = *findProfile(QString::fromLatin1(name));
    c.maxNumSeqs = maxNumSeqs;
    c.maxNumBatchedTokens = c.profile.defaultMaxBatchedTokens;
    c.kvCacheTokens = c.profile.kvCacheTokens;
    return c;
}

const VirtualLoadSpec kStress { 64, 256, 128, 256 };

} // namespace

class TestBatchEngine : public QObject {
    Q_OBJECT
private slots:
    void admitsAtMostMaxNumSeqsAndQueuesTheRestFifo()
    {
        BatchEngine engine(config(2, 1000));
        for (std::uint64_t id = 1; id <= 5; ++id)
            engine.submit({ id, 10, 4, id });
        const StepOutcome first = engine.step();
        QCOMPARE(engine.runningCount(), 2);
        QCOMPARE(engine.waitingCount(), 3);
        QCOMPARE(first.admitted.size(), std::size_t(2));
        QCOMPARE(first.admitted[0].id, std::uint64_t(1));
        QCOMPARE(first.admitted[1].id, std::uint64_t(2));
        // Run until the first two finish: the next admitted must be 3 then 4.
        std::vector<std::uint64_t> order;
        while (!engine.idle()) {
            for (const Admission& a : engine.step().admitted)
                order.push_back(a.id);
        }
        QCOMPARE(order, (std::vector<std::uint64_t> { 3, 4, 5 }));
    }

    void chunkedPrefillRespectsTheTokenBudget()
    {
        BatchEngine engine(config(8, 100));
        engine.submit({ 1, 250, 3, 1 });
        const StepOutcome s1 = engine.step();
        const StepOutcome s2 = engine.step();
        const StepOutcome s3 = engine.step();
        QCOMPARE(s1.prefillTokens, 100);
        QCOMPARE(s2.prefillTokens, 100);
        QCOMPARE(s3.prefillTokens, 50);
        QVERIFY(s1.emissions.empty());
        QVERIFY(s2.emissions.empty());
        QCOMPARE(s3.emissions.size(), std::size_t(1)); // the last prefill chunk samples token 0
        QCOMPARE(s3.emissions[0].tokenIndex, 0);
    }

    void stepTimeIsBasePlusPerSequencePlusPrefill()
    {
        BatchEngine engine(config(8, 1000));
        engine.submit({ 1, 40, 5, 1 });
        engine.submit({ 2, 60, 5, 2 });
        const StepOutcome prefill = engine.step();
        // 10 ms base + 2 sampled sequences * 0.1 ms + 100 prefill tokens * 0.01 ms
        QCOMPARE(prefill.durationUs, std::int64_t(10000 + 2 * 100 + 100 * 10));
        const StepOutcome decode = engine.step();
        QCOMPARE(decode.decodeBatch, 2);
        QCOMPARE(decode.prefillTokens, 0);
        QCOMPARE(decode.durationUs, std::int64_t(10000 + 2 * 100));
    }

    void emitsEveryTokenOnceAndFlagsTheLast()
    {
        BatchEngine engine(config(4, 1000));
        engine.submit({ 7, 10, 5, 7 });
        std::vector<int> indices;
        bool sawLast = false;
        while (!engine.idle()) {
            for (const TokenEmission& e : engine.step().emissions) {
                indices.push_back(e.tokenIndex);
                if (e.last) {
                    QVERIFY(!sawLast);
                    sawLast = true;
                    QCOMPARE(e.tokenIndex, 4);
                }
            }
        }
        QCOMPARE(indices, (std::vector<int> { 0, 1, 2, 3, 4 }));
        QVERIFY(sawLast);
    }

    void kvCacheReservationLimitsAdmission()
    {
        BatchEngine engine(config(8, 1000, 100));
        engine.submit({ 1, 40, 20, 1 }); // reserves 60
        engine.submit({ 2, 40, 20, 2 }); // would need 120 in all
        engine.step();
        QCOMPARE(engine.runningCount(), 1);
        QCOMPARE(engine.waitingCount(), 1);
        QVERIFY(engine.kvCacheUsage() > 0.4 && engine.kvCacheUsage() <= 0.6);
    }

    void prefixCacheHitSkipsMostOfThePrefill()
    {
        BatchEngine engine(config(4, 1000));
        engine.submit({ 1, 200, 1, 99 });
        QCOMPARE(engine.step().prefillTokens, 200);
        QVERIFY(engine.idle());
        engine.submit({ 2, 200, 1, 99 });
        const StepOutcome again = engine.step();
        QVERIFY(again.admitted.at(0).prefixCacheHit);
        QCOMPARE(again.prefillTokens, 200 % 16);
    }

    // Block by block: a prompt that shares only its first 40 tokens with a cached
    // one reads their 2 full blocks from the cache and prefills the rest.
    void aSharedPrefixHitsItsFullBlocks()
    {
        auto blocksOf = [](const QByteArray& text) {
            PromptBlocks b;
            b.addText(text);
            return std::pair { b.tokens(), b.takeBlocks() };
        };
        QByteArray shared;
        for (int i = 0; i < 40; ++i)
            shared += "w" + QByteArray::number(i) + ' ';
        const auto [firstTokens, first] = blocksOf(shared + "alpha beta gamma");
        const auto [secondTokens, second] = blocksOf(shared + "delta epsilon zeta eta");
        QCOMPARE(firstTokens, 43);
        QCOMPARE(secondTokens, 44);
        QCOMPARE(first.size(), std::size_t(2));
        QCOMPARE(second[0], first[0]);
        QCOMPARE(second[1], first[1]);

        BatchEngine engine(config(4, 1000));
        engine.submit({ 1, firstTokens, 1, 1 }, first);
        QCOMPARE(engine.step().admitted.at(0).cachedTokens, 0);
        engine.submit({ 2, secondTokens, 1, 2 }, second);
        const StepOutcome again = engine.step();
        QVERIFY(again.admitted.at(0).prefixCacheHit);
        QCOMPARE(again.admitted.at(0).cachedTokens, 32);
        QCOMPARE(again.prefillTokens, 44 - 32);
        QCOMPARE(engine.prefixCacheQueries(), quint64(43 + 44));
        QCOMPARE(engine.prefixCacheHits(), quint64(32));

        // A long word is one token per 8 bytes, and a different first token shares nothing.
        QCOMPARE(blocksOf("abcdefghijklmnopq").first, 3);
        const auto [otherTokens, other] = blocksOf("x " + shared);
        engine.submit({ 3, otherTokens, 1, 3 }, other);
        QCOMPARE(engine.step().admitted.at(0).cachedTokens, 0);
    }

    void cancelRemovesRunningAndWaiting()
    {
        BatchEngine engine(config(1, 1000));
        engine.submit({ 1, 10, 100, 1 });
        engine.submit({ 2, 10, 100, 2 });
        engine.step();
        engine.cancel(2);
        QCOMPARE(engine.waitingCount(), 0);
        engine.cancel(1);
        QVERIFY(engine.idle());
    }

    // The seed's first finding on virtual time: 64 concurrent streams of 256 tokens.
    void maxNumSeqsCliffUnderStress()
    {
        const auto small = runClosedLoop(profileConfig("sim-8b", 32), kStress);
        const auto large = runClosedLoop(profileConfig("sim-8b", 128), kStress);
        const double ttft32 = ks::percentile(small.ttftMs, 50);
        const double ttft128 = ks::percentile(large.ttftMs, 50);
        QVERIFY2(ttft32 / ttft128 >= 10, qPrintable(QStringLiteral("%1 vs %2 ms").arg(ttft32).arg(ttft128)));
        QVERIFY(ttft32 > 5000 && ttft32 < 10000);
        QVERIFY(ttft128 > 250 && ttft128 < 600);
        QCOMPARE(small.peakRunning, 32);
        QCOMPARE(large.peakRunning, 64);
    }

    void tpotStaysInTheStudysRangeUnderStress_data()
    {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<int>("maxNumSeqs");
        QTest::newRow("sim-8b mns32") << QStringLiteral("sim-8b") << 32;
        QTest::newRow("sim-8b mns128") << QStringLiteral("sim-8b") << 128;
        QTest::newRow("sim-1.8b mns128") << QStringLiteral("sim-1.8b") << 128;
    }
    void tpotStaysInTheStudysRangeUnderStress()
    {
        QFETCH(QString, profile);
        QFETCH(int, maxNumSeqs);
        const auto r = runClosedLoop(profileConfig(profile.toLatin1().constData(), maxNumSeqs), kStress);
        const auto tpot = ks::summarize(r.tpotMs);
        QVERIFY2(
            tpot.p50 >= 16 && tpot.max <= 28, qPrintable(QStringLiteral("p50 %1 max %2").arg(tpot.p50).arg(tpot.max)));
    }

    void gentleLoadShowsNoCliff()
    {
        const VirtualLoadSpec gentle { 4, 64, 128, 128 };
        const double a = ks::percentile(runClosedLoop(profileConfig("sim-8b", 32), gentle).ttftMs, 50);
        const double b = ks::percentile(runClosedLoop(profileConfig("sim-8b", 128), gentle).ttftMs, 50);
        QVERIFY(a / b < 1.5);
    }

    void smallModelWinsBig()
    {
        const auto small = runClosedLoop(profileConfig("sim-1.8b", 128), kStress);
        const auto large = runClosedLoop(profileConfig("sim-8b", 128), kStress);
        const double ttftRatio = ks::percentile(large.ttftMs, 50) / ks::percentile(small.ttftMs, 50);
        const double rateRatio = large.requestsPerSecond / small.requestsPerSecond;
        QVERIFY2(ttftRatio > 3.0 && ttftRatio < 4.2, qPrintable(QString::number(ttftRatio)));
        QVERIFY2(rateRatio > 0.45 && rateRatio < 0.7, qPrintable(QString::number(rateRatio)));
    }

    // Chunked prefill at prefill_per_token: a prompt four times as long takes
    // four times the steps to its first token, so TTFT grows in proportion.
    void longPromptsPrefillInProportion()
    {
        auto ttftUs = [](int promptTokens) {
            EngineConfig c = profileConfig("sim-1.8b", 8);
            BatchEngine engine(c);
            engine.submit({ 1, promptTokens, 4, 7 });
            std::int64_t elapsed = 0;
            int steps = 0;
            while (true) {
                const StepOutcome out = engine.step();
                elapsed += out.durationUs;
                ++steps;
                if (!out.emissions.empty())
                    return std::pair { elapsed, steps };
            }
        };
        const auto [short32k, steps32k] = ttftUs(32768);
        const auto [long128k, steps128k] = ttftUs(131072);
        const SimProfile p = *findProfile(QStringLiteral("sim-1.8b"));
        QCOMPARE(steps32k, 32768 / p.defaultMaxBatchedTokens);
        QCOMPARE(steps128k, 131072 / p.defaultMaxBatchedTokens);
        // Every step pays its base; the last one also samples the first token.
        QCOMPARE(long128k,
            std::int64_t(std::llround(steps128k * p.stepBaseUs + p.stepPerSeqUs + 131072 * p.prefillPerTokenUs)));
        QCOMPARE(long128k, 4 * short32k - 3 * std::int64_t(p.stepPerSeqUs));
    }
};

QTEST_GUILESS_MAIN(TestBatchEngine)
#include "tst_batchengine.moc"
