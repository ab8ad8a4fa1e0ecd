// Speculative decoding in the simulated engine: the acceptance rule (accepted
// drafts plus one token per step, capped at the output's end), its counters,
// and the step-time rule that makes it pay at high acceptance only.
#include "batchengine.h"
#include "metrics/percentiles.h"
#include "virtualload.h"

#include <QTest>

using namespace kssim;

namespace {

EngineConfig specConfig(int tokens, double accept, std::uint64_t seed = 7)
{
    EngineConfig c;
    c.profile = *findProfile(QStringLiteral("sim-8b"));
    c.maxNumSeqs = 16;
    c.maxNumBatchedTokens = c.profile.defaultMaxBatchedTokens;
    c.kvCacheTokens = c.profile.kvCacheTokens;
    c.specTokens = tokens;
    c.specAccept = accept;
    c.specSeed = seed;
    return c;
}

struct Trace {
    std::vector<int> counts; ///< tokens per emission, in order
    int accepted = 0;
    int drafts = 0;
};

Trace runToEnd(BatchEngine& engine, int requests, int outputTokens)
{
    for (int i = 1; i <= requests; ++i)
        engine.submit({ std::uint64_t(i), 64, outputTokens, std::uint64_t(i) });
    Trace t;
    while (!engine.idle()) {
        for (const TokenEmission& e : engine.step().emissions) {
            t.counts.push_back(e.count);
            t.accepted += e.acceptedTokens;
            t.drafts += e.draftTokens > 0 ? 1 : 0;
        }
    }
    return t;
}

} // namespace

class TestSpecDecode : public QObject {
    Q_OBJECT
private slots:
    void emitsAcceptedDraftsPlusOneCappedAtTheEnd()
    {
        BatchEngine all(specConfig(4, 1.0));
        const Trace full = runToEnd(all, 1, 12);
        // Token 0 from the prefill, then 5 a step (4 drafts all accepted + 1), then the last 1.
        QCOMPARE(full.counts, (std::vector<int> { 1, 5, 5, 1 }));
        QCOMPARE(all.specCounters().drafts, quint64(3));
        QCOMPARE(all.specCounters().draftTokens, quint64(12));
        QCOMPARE(all.specCounters().acceptedTokens, quint64(12)); // the verifier accepted them; the cap cut the output
        BatchEngine none(specConfig(4, 0.0));
        const Trace single = runToEnd(none, 1, 5);
        QCOMPARE(single.counts, (std::vector<int> { 1, 1, 1, 1, 1 }));
        QCOMPARE(none.specCounters().acceptedTokens, quint64(0));
        QCOMPARE(none.specCounters().draftTokens, quint64(16));
    }

    void sameSeedSameRunAndCountersAddUp()
    {
        BatchEngine a(specConfig(3, 0.6, 42));
        BatchEngine b(specConfig(3, 0.6, 42));
        BatchEngine c(specConfig(3, 0.6, 43));
        const Trace ta = runToEnd(a, 8, 200);
        QCOMPARE(runToEnd(b, 8, 200).counts, ta.counts);
        QVERIFY(runToEnd(c, 8, 200).counts != ta.counts);
        int tokens = 0;
        for (int n : ta.counts)
            tokens += n;
        QCOMPARE(tokens, 8 * 200);
        const auto& k = a.specCounters();
        QCOMPARE(k.drafts, quint64(ta.drafts));
        QCOMPARE(k.acceptedTokens, quint64(ta.accepted));
        QCOMPARE(k.draftTokens, 3 * k.drafts);
        // Position i is reached only when every earlier draft was accepted.
        QCOMPARE(k.acceptedPerPosition.size(), std::size_t(3));
        QCOMPARE(k.acceptedPerPosition[0] + k.acceptedPerPosition[1] + k.acceptedPerPosition[2], k.acceptedTokens);
        QVERIFY(k.acceptedPerPosition[0] >= k.acceptedPerPosition[1]);
        QVERIFY(k.acceptedPerPosition[1] >= k.acceptedPerPosition[2]);
    }

    void acceptedRunIsGeometric()
    {
        std::mt19937_64 rng(1);
        const int draws = 40000;
        long total = 0;
        for (int i = 0; i < draws; ++i)
            total += BatchEngine::drawAccepted(4, 0.6, rng);
        const double expected = 0.6 + 0.36 + 0.216 + 0.1296; // sum of p^i, i = 1..4
        QVERIFY2(std::abs(double(total) / draws - expected) < 0.03, qPrintable(QString::number(double(total) / draws)));
    }

    void tpotFallsAtHighAcceptanceAndRisesAtLow()
    {
        const VirtualLoadSpec load { 16, 64, 128, 128 };
        auto medianTpot = [&](const EngineConfig& c) { return ks::percentile(runClosedLoop(c, load).tpotMs, 50); };
        const double off = medianTpot(specConfig(0, 0));
        const double high = medianTpot(specConfig(4, 0.8));
        const double low = medianTpot(specConfig(4, 0.4));
        QVERIFY2(high < 0.7 * off, qPrintable(QStringLiteral("%1 vs %2").arg(high).arg(off)));
        QVERIFY2(low > off, qPrintable(QStringLiteral("%1 vs %2").arg(low).arg(off)));
    }
};

QTEST_GUILESS_MAIN(TestSpecDecode)
#include "tst_specdecode.moc"
