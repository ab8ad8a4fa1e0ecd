#include "load/arrivalschedule.h"

#include <QTest>

#include <algorithm>
#include <cmath>

namespace {

struct GapStats {
    double mean = 0;
    double cv = 0;
};

GapStats gapStats(const std::vector<qint64>& times)
{
    std::vector<double> gaps;
    for (std::size_t i = 1; i < times.size(); ++i)
        gaps.push_back(double(times[i] - times[i - 1]) / 1e6);
    double sum = 0;
    for (double g : gaps)
        sum += g;
    const double mean = sum / double(gaps.size());
    double var = 0;
    for (double g : gaps)
        var += (g - mean) * (g - mean);
    var /= double(gaps.size() - 1);
    return { mean, std::sqrt(var) / mean };
}

} // namespace

class TestArrivalSchedule : public QObject {
    Q_OBJECT
private slots:
    void poissonHasTheRightRateAndExponentialGaps()
    {
        const auto times = ks::gammaArrivals(50.0, 1.0, 20000, 0, 7);
        QCOMPARE(times.size(), std::size_t(20000));
        QCOMPARE(times.front(), qint64(0));
        const GapStats s = gapStats(times);
        // Mean 1/rate within 2 %; an exponential has CV 1.
        QVERIFY2(std::abs(s.mean - 0.02) / 0.02 < 0.02, qPrintable(QString::number(s.mean)));
        QVERIFY2(std::abs(s.cv - 1.0) < 0.03, qPrintable(QString::number(s.cv)));
        // Exponential: P(gap > mean) = e^-1.
        int above = 0;
        for (std::size_t i = 1; i < times.size(); ++i)
            above += double(times[i] - times[i - 1]) / 1e6 > 0.02;
        QVERIFY(std::abs(above / 19999.0 - std::exp(-1.0)) < 0.015);
    }

    void burstinessSetsTheSpread_data()
    {
        QTest::addColumn<double>("shape");
        QTest::newRow("bursty 0.25") << 0.25;
        QTest::newRow("smooth 4") << 4.0;
    }
    void burstinessSetsTheSpread()
    {
        QFETCH(double, shape);
        const GapStats s = gapStats(ks::gammaArrivals(10.0, shape, 20000, 0, 3));
        QVERIFY(std::abs(s.mean - 0.1) / 0.1 < 0.04);
        QVERIFY2(std::abs(s.cv - 1.0 / std::sqrt(shape)) < 0.06, qPrintable(QString::number(s.cv)));
    }

    void durationBoundsTheSchedule()
    {
        const auto times = ks::gammaArrivals(100.0, 1.0, 0, 5.0, 11);
        QVERIFY(times.back() < 5'000'000);
        QVERIFY(times.size() > 400 && times.size() < 600);
    }

    void seedMakesItRepeatable()
    {
        QCOMPARE(ks::gammaArrivals(5.0, 1.0, 100, 0, 42), ks::gammaArrivals(5.0, 1.0, 100, 0, 42));
        QVERIFY(ks::gammaArrivals(5.0, 1.0, 100, 0, 42) != ks::gammaArrivals(5.0, 1.0, 100, 0, 43));
    }

    // A steered rate: the kept prefix stays, the new process starts one gap
    // after the command (not at it, and not from the arm's start), at its own rate.
    void appendedArrivalsStartAtTheCommand()
    {
        std::vector<qint64> times = ks::gammaArrivals(2.0, 1.0, 0, 10.0, 5);
        const std::vector<qint64> kept(times.begin(), times.begin() + 4);
        times.resize(4);
        const qint64 fromUs = kept.back() + 1;
        QVERIFY(ks::appendGammaArrivals(times, fromUs, 40.0, 1.0, 0, fromUs + 500'000'000, 9, 1'000'000));
        QVERIFY(std::equal(kept.begin(), kept.end(), times.begin()));
        QVERIFY(times[4] > fromUs);
        QVERIFY(times.back() < fromUs + 500'000'000);
        QVERIFY(std::is_sorted(times.begin(), times.end()));
        const GapStats s = gapStats(std::vector<qint64>(times.begin() + 4, times.end()));
        QVERIFY2(std::abs(s.mean - 0.025) / 0.025 < 0.02, qPrintable(QString::number(s.mean)));
        // The first gap is an ordinary one: over many seeds its mean is 1/rate.
        double first = 0;
        for (quint64 seed = 0; seed < 4000; ++seed) {
            std::vector<qint64> one;
            QVERIFY(ks::appendGammaArrivals(one, 1'000'000, 40.0, 1.0, 1, 0, seed, 10));
            QCOMPARE(one.size(), std::size_t(1));
            first += double(one[0] - 1'000'000) / 1e6;
        }
        QVERIFY2(std::abs(first / 4000 - 0.025) / 0.025 < 0.05, qPrintable(QString::number(first / 4000)));
    }

    void appendedArrivalsKeepTheBounds()
    {
        std::vector<qint64> times { 0, 10 };
        QVERIFY(ks::appendGammaArrivals(times, 20, 100.0, 1.0, 7, 0, 1, 100));
        QCOMPARE(times.size(), std::size_t(9)); // the remaining count
        // More than the limit: refused, nothing appended.
        QVERIFY(!ks::appendGammaArrivals(times, 20, 1e6, 1.0, 0, 60'000'000, 1, 1000));
        QCOMPARE(times.size(), std::size_t(9));
    }
};

QTEST_GUILESS_MAIN(TestArrivalSchedule)
#include "tst_arrivalschedule.moc"
