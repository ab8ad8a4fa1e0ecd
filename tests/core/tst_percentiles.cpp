#include "metrics/percentiles.h"

#include <QTest>

#include <cstdint>
#include <span>
#include <vector>

// Expected values are numpy.percentile(values, p) with the default (linear) method.
class TestPercentiles : public QObject {
    Q_OBJECT
private slots:
    void linearInterpolation_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("p");
        QTest::addColumn<double>("expected");
        QTest::newRow("median of four") << QList<double> { 1, 2, 3, 4 } << 50.0 << 2.5;
        QTest::newRow("p90 of four") << QList<double> { 1, 2, 3, 4 } << 90.0 << 3.7;
        QTest::newRow("p99 of four") << QList<double> { 1, 2, 3, 4 } << 99.0 << 3.97;
        QTest::newRow("p40 unsorted") << QList<double> { 50, 15, 40, 20, 35 } << 40.0 << 29.0;
        QTest::newRow("p0 is min") << QList<double> { 7, 3, 9 } << 0.0 << 3.0;
        QTest::newRow("p100 is max") << QList<double> { 7, 3, 9 } << 100.0 << 9.0;
        QTest::newRow("single value") << QList<double> { 42 } << 95.0 << 42.0;
        QTest::newRow("p95 of 1..10") << QList<double> { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } << 95.0 << 9.55;
    }
    void linearInterpolation()
    {
        QFETCH(QList<double>, values);
        QFETCH(double, p);
        QFETCH(double, expected);
        const std::vector<double> v(values.begin(), values.end());
        QVERIFY(qAbs(ks::percentile(v, p) - expected) < 1e-9);
    }

    void selectionMatchesSorting_data()
    {
        QTest::addColumn<int>("size");
        for (int n : { 1, 2, 3, 7, 100, 1001, 20000 })
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void selectionMatchesSorting()
    {
        QFETCH(int, size);
        std::vector<double> values;
        quint64 x = 88172645463325252ULL;
        for (int i = 0; i < size; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push_back(double(x % 100000) / 7.0 + (i % 5 == 0 ? 1000.0 : 0.0)); // ties and skew
        }
        const ks::PercentileSummary sorted = ks::summarize(values);
        std::vector<double> scratch = values;
        const ks::PercentileSummary selected = ks::summarizeBySelection(scratch);
        QCOMPARE(selected.p50, sorted.p50);
        QCOMPARE(selected.p90, sorted.p90);
        QCOMPARE(selected.p95, sorted.p95);
        QCOMPARE(selected.p99, sorted.p99);
        QCOMPARE(selected.max, sorted.max);
        QCOMPARE(selected.count, sorted.count);
        QVERIFY(std::abs(selected.mean - sorted.mean) < 1e-9 * std::abs(sorted.mean));
    }

    // Both of summarizeIntegers' paths (a copy below 8192 values, counting
    // tables above), over values split across spans, against a full sort.
    void integersMatchSorting_data()
    {
        QTest::addColumn<int>("size");
        for (int n : { 1, 2, 5, 100, 8191, 8192, 70000 })
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void integersMatchSorting()
    {
        QFETCH(int, size);
        std::vector<std::int32_t> gaps;
        quint64 x = 2463534242ULL;
        for (int i = 0; i < size; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            gaps.push_back(std::int32_t(x % (i % 3 == 0 ? 5000000 : 40000))); // above and below 2^16
        }
        const std::size_t half = gaps.size() / 2;
        const std::vector<std::span<const std::int32_t>> parts {
            std::span<const std::int32_t>(gaps.data(), half),
            std::span<const std::int32_t>(gaps.data() + half, gaps.size() - half),
        };
        std::vector<double> values;
        for (std::int32_t g : gaps)
            values.push_back(double(g) / 1000.0);
        const ks::PercentileSummary sorted = ks::summarize(values);
        const ks::PercentileSummary counted = ks::summarizeIntegers(parts, 1000.0);
        QCOMPARE(counted.p50, sorted.p50);
        QCOMPARE(counted.p90, sorted.p90);
        QCOMPARE(counted.p95, sorted.p95);
        QCOMPARE(counted.p99, sorted.p99);
        QCOMPARE(counted.max, sorted.max);
        QCOMPARE(counted.count, sorted.count);
        QVERIFY(std::abs(counted.mean - sorted.mean) <= 1e-9 * std::abs(sorted.mean));
    }

    void emptyInputIsZero()
    {
        QCOMPARE(ks::percentile(std::vector<double> {}, 50), 0.0);
        QCOMPARE(ks::summarize({}).count, 0);
    }

    void summaryFields()
    {
        const auto s = ks::summarize({ 10, 20, 30, 40, 100 });
        QCOMPARE(s.count, 5);
        QCOMPARE(s.p50, 30.0);
        QVERIFY(qAbs(s.p90 - 76.0) < 1e-9); // rank 3.6: 40 + 0.6 * 60
        QCOMPARE(s.max, 100.0);
        QCOMPARE(s.mean, 40.0);
    }
};

QTEST_GUILESS_MAIN(TestPercentiles)
#include "tst_percentiles.moc"
