#include "compare/runtorun.h"
#include "metrics/bootstrap.h"
#include "metrics/percentiles.h"
#include "metrics/repeatstats.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace ks;

namespace {
std::vector<double> exponentialSample(std::size_t n, quint64 seed, double scale = 1.0)
{
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> dist(1.0 / scale);
    std::vector<double> v(n);
    for (double& x : v)
        x = dist(rng);
    return v;
}
} // namespace

class TestBootstrap : public QObject {
    Q_OBJECT
private slots:
    // The interval should hold the true median (ln 2 for Exp(1)) about 95 % of
    // the time. Checked once over a fixed list of 200 seeds: the count is
    // deterministic, and a correct 95 % interval lands well inside [88 %, 99 %].
    void coverageIsCloseToNinetyFivePercent()
    {
        const double trueMedian = std::log(2.0);
        int covered = 0;
        const int trials = 200;
        for (int seed = 1; seed <= trials; ++seed) {
            const auto sample = exponentialSample(200, quint64(seed));
            if (bootstrapPercentileCi(sample, 50, 1000, quint64(seed) * 7919).contains(trueMedian))
                ++covered;
        }
        const double coverage = double(covered) / trials;
        qInfo("95 %% interval coverage over %d seeds: %.3f", trials, coverage);
        QVERIFY2(coverage >= 0.88 && coverage <= 0.99, qPrintable(QString::number(coverage)));
    }

    void intervalBracketsThePointEstimateAndIsRepeatable()
    {
        const auto sample = exponentialSample(500, 3);
        const Interval a = bootstrapPercentileCi(sample, 95, 1000, 11);
        const Interval b = bootstrapPercentileCi(sample, 95, 1000, 11);
        QCOMPARE(a.low, b.low);
        QCOMPARE(a.high, b.high);
        QVERIFY(a.contains(percentile(sample, 95)));
        QVERIFY(a.low < a.high);
    }

    void ratioSeparatesRealDifferencesFromNoise()
    {
        const auto base = exponentialSample(400, 5);
        const auto same = exponentialSample(400, 6);
        const auto doubled = exponentialSample(400, 7, 2.0);
        const Interval noise = bootstrapRatioCi(base, same, 50, 1000, 1);
        const Interval real = bootstrapRatioCi(base, doubled, 50, 1000, 1);
        QVERIFY2(noise.contains(1.0), qPrintable(QStringLiteral("%1..%2").arg(noise.low).arg(noise.high)));
        QVERIFY2(!real.contains(1.0) && real.contains(2.0),
            qPrintable(QStringLiteral("%1..%2").arg(real.low).arg(real.high)));
    }

    void emptyInputGivesAnEmptyInterval()
    {
        const Interval i = bootstrapPercentileCi({}, 50, 1000, 1);
        QCOMPARE(i.low, 0.0);
        QCOMPARE(i.high, 0.0);
    }

    // A block holds one generation of concurrent requests, at least n^(1/3),
    // at most n/8; short runs resample single values.
    void blockLengthFollowsConcurrency()
    {
        QCOMPARE(blockLength(10, 64), std::size_t(1));
        QCOMPARE(blockLength(64, 4), std::size_t(4)); // cbrt(64) = 4 as well
        QCOMPARE(blockLength(64, 1), std::size_t(4));
        QCOMPARE(blockLength(256, 6.5), std::size_t(7));
        QCOMPARE(blockLength(256, 64), std::size_t(32)); // capped: eight blocks a resample
        QCOMPARE(blockLength(1000, std::nan("")), std::size_t(10));
    }

    // Values that come in runs (requests that shared a phase of the engine's
    // steps) hold less information than their count: the block bootstrap's
    // interval must be wider than the one that treats them as independent, and
    // must hold the mean of the generating process far more often.
    void blocksKeepCorrelatedValuesTogether()
    {
        std::mt19937_64 rng(7);
        std::normal_distribution<double> level(100, 10), noise(0, 1);
        std::vector<double> values;
        for (int run = 0; run < 16; ++run) { // 16 runs of 16 equal-ish values
            const double l = level(rng);
            for (int i = 0; i < 16; ++i)
                values.push_back(l + noise(rng));
        }
        const double ps[] = { 50 };
        const Interval iid = bootstrapIntervals({}, values, ps, 1000, 3).other[0];
        const Interval blocks = bootstrapIntervals({}, values, ps, 1000, 3, 0.95, 1, 16).other[0];
        QVERIFY2(blocks.high - blocks.low > 2 * (iid.high - iid.low),
            qPrintable(
                QStringLiteral("iid %1-%2, blocks %3-%4").arg(iid.low).arg(iid.high).arg(blocks.low).arg(blocks.high)));
        QVERIFY(blocks.contains(percentile(values, 50)));
    }

    // Rounds: Student's t over the per-round log ratios, about the ratio, unless the bootstrap is wider.
    void roundsTakeStudentsTOverTheRounds()
    {
        const RoundValues base { { 1, 100.0 }, { 2, 110.0 }, { 3, 90.0 } };
        const RoundValues other { { 1, 112.0 }, { 2, 118.0 }, { 3, 101.0 } };
        const std::optional<RoundSpread> spread = roundSpread(base, other);
        QVERIFY(spread && spread->paired);
        QCOMPARE(spread->rounds, 3);
        const double d[] = { std::log(1.12), std::log(118.0 / 110.0), std::log(101.0 / 90.0) };
        const double mean = (d[0] + d[1] + d[2]) / 3;
        const double sd = std::sqrt(
            ((d[0] - mean) * (d[0] - mean) + (d[1] - mean) * (d[1] - mean) + (d[2] - mean) * (d[2] - mean)) / 2);
        QVERIFY(std::abs(spread->pairSd - sd) < 1e-12);
        QVERIFY(std::abs(spread->meanLog - mean) < 1e-12);
        const Interval narrow { 1.09, 1.11 };
        const Interval wide = roundsInterval(narrow, *spread, 0.95);
        const double half = studentTQuantile(0.975, 2) * sd / std::sqrt(3.0); // t(2) = 4.303
        QVERIFY(std::abs(std::log(wide.high) - (mean + half)) < 1e-9); // about the rounds' ratio
        QVERIFY(std::abs(std::log(wide.low) - (mean - half)) < 1e-9);
        // The bootstrap is wider: as wide as it, still about the rounds' ratio.
        const Interval floor = roundsInterval({ 0.5, 2.0 }, *spread, 0.95);
        QVERIFY(std::abs(std::log(floor.low) - (mean - std::log(2.0))) < 1e-9);
        // Rounds that do not line up: the unpaired (Welch) spread.
        const RoundValues late { { 4, 112.0 }, { 5, 118.0 }, { 6, 101.0 } };
        const std::optional<RoundSpread> unpaired = roundSpread(base, late);
        QVERIFY(unpaired && !unpaired->paired);
        QVERIFY(!roundSpread({ { 1, 100.0 } }, { { 1, 110.0 } })); // one round: no spread
    }

    // A calibration: one run a side, each sqrt(2) of the calibration's spread apart.
    void aCalibrationWidensBySqrtTwo()
    {
        const Interval wide = calibratedInterval(1.0, { 0.99, 1.01 }, 0.05, 6, 0.95);
        QVERIFY(std::abs(std::log(wide.high) - studentTQuantile(0.975, 5) * std::sqrt(2.0) * 0.05) < 1e-9);
        QCOMPARE(calibratedInterval(1.0, { 0.99, 1.01 }, 0.05, 1, 0.95).high, 1.01); // one run: no spread
        QCOMPARE(std::string(runToRunMethodName(RunToRunMethod::WithinRun)), std::string("within-run"));
    }
};

QTEST_GUILESS_MAIN(TestBootstrap)
#include "tst_bootstrap.moc"
