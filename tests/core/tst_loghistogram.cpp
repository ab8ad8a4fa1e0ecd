#include "metrics/loghistogram.h"
#include "metrics/percentiles.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace ks;

namespace {

// Every percentile a report shows, and a few in between, against the exact rule.
void checkAgainstExact(const std::vector<double>& values)
{
    LogHistogram h;
    for (double v : values)
        h.add(v);
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (double p : { 0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0 }) {
        const double exact = percentileOfSorted(sorted, p);
        const double reported = h.percentile(p);
        if (std::abs(reported - exact) > LogHistogram::kRelativeError * exact + 1e-12)
            QFAIL(qPrintable(
                QStringLiteral("p%1: histogram %2, exact %3").arg(p).arg(reported, 0, 'g', 12).arg(exact, 0, 'g', 12)));
    }
    const PercentileSummary s = h.summary();
    QCOMPARE(s.count, int(values.size()));
    QCOMPARE(s.max, sorted.back());
    double sum = 0;
    for (double v : values)
        sum += v;
    QVERIFY(std::abs(s.mean - sum / double(values.size())) <= 1e-9 * std::abs(s.mean) + 1e-12);
}

} // namespace

class TestLogHistogram : public QObject {
    Q_OBJECT
private slots:
    void lognormalLatencies()
    {
        std::mt19937_64 rng(1);
        std::lognormal_distribution<double> ttft(std::log(400.0), 0.8);
        std::vector<double> values(100'000);
        for (double& v : values)
            v = ttft(rng);
        checkAgainstExact(values);
    }

    void uniformOverManyDecades()
    {
        std::mt19937_64 rng(2);
        std::uniform_real_distribution<double> exponent(-5, 7);
        std::vector<double> values(50'000);
        for (double& v : values)
            v = std::pow(10.0, exponent(rng));
        checkAgainstExact(values);
    }

    void adversarialBucketEdges()
    {
        // Values on and just beside powers of two and sub-bucket edges, where
        // an off-by-one in the bucket arithmetic would show.
        std::vector<double> values;
        for (int e = -10; e < 30; ++e) {
            const double base = std::ldexp(1.0, e);
            for (int k = 0; k <= LogHistogram::kSubBuckets; k += 7) {
                const double edge = base + base * k / LogHistogram::kSubBuckets;
                values.push_back(edge);
                values.push_back(std::nextafter(edge, 0.0));
                values.push_back(std::nextafter(edge, 1e300));
            }
        }
        checkAgainstExact(values);
    }

    void bimodalWithZerosAndATail()
    {
        // Many exact zeros (two events in one microsecond), two tight modes, and
        // one huge outlier: interpolation across the gap between modes.
        std::vector<double> values(1000, 0.0);
        values.insert(values.end(), 5000, 0.025);
        values.insert(values.end(), 4000, 3000.0);
        values.push_back(1e9);
        checkAgainstExact(values);
    }

    void allEqualAndSingle()
    {
        checkAgainstExact(std::vector<double>(777, 123.456));
        checkAgainstExact({ 42.0 });
        checkAgainstExact({ 1.0, 1000.0 });
    }

    // Two workers' histograms merged equal one histogram fed every value.
    void mergeEqualsOneHistogramOfEverything()
    {
        std::mt19937_64 rng(7);
        std::lognormal_distribution<double> lag(0.0, 1.5);
        LogHistogram a;
        LogHistogram b;
        LogHistogram all;
        for (int i = 0; i < 5000; ++i) {
            const double v = i % 97 == 0 ? 0.0 : lag(rng);
            (i % 3 == 0 ? a : b).add(v);
            all.add(v);
        }
        LogHistogram merged;
        merged.merge(LogHistogram()); // an empty one changes nothing
        QCOMPARE(merged.count(), std::uint64_t(0));
        merged.merge(a);
        merged.merge(b);
        QCOMPARE(merged.count(), all.count());
        for (double p : { 0.0, 50.0, 90.0, 99.0, 100.0 })
            QCOMPARE(merged.percentile(p), all.percentile(p));
        QCOMPARE(merged.summary().mean, all.summary().mean);
    }

    void ignoresNegativeAndNan()
    {
        LogHistogram h;
        h.add(-1);
        h.add(std::nan(""));
        QCOMPARE(h.count(), std::uint64_t(0));
        QCOMPARE(h.summary().count, 0);
    }
};

QTEST_GUILESS_MAIN(TestLogHistogram)
#include "tst_loghistogram.moc"
