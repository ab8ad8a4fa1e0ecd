#include "load/arrivalschedule.h"

#include <QTest>

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
};

QTEST_GUILESS_MAIN(TestArrivalSchedule)
#include "tst_arrivalschedule.moc"
