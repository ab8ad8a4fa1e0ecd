// Trends in the run library (core/library/runtrend): where a configuration's
// figure moved across runs, never where it only scattered within its intervals.
#include "library/runtrend.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace ks;

namespace {

// A point of value v with a 95 % interval of +-`halfWidth` relative (log-symmetric).
TrendPoint pointOf(double v, double halfWidth)
{
    TrendPoint p;
    p.figure.value = v;
    p.figure.low = v / (1 + halfWidth);
    p.figure.high = v * (1 + halfWidth);
    return p;
}

// `n` runs of a steady configuration: each reads its true value with an error
// its own interval (+-6 %) describes, plus `drift` (sd, relative) run to run.
std::vector<TrendPoint> steadyRuns(int n, std::mt19937_64& rng, double drift = 0)
{
    std::normal_distribution<double> within(0, std::log(1.06) / 1.96), between(0, drift);
    std::vector<TrendPoint> points;
    for (int i = 0; i < n; ++i)
        points.push_back(pointOf(100 * std::exp(within(rng) + (drift > 0 ? between(rng) : 0)), 0.06));
    return points;
}

CatalogueRow rowOf(qint64 id, const QString& startedAt, double ttftP99, const QString& shape = QStringLiteral("{}"))
{
    CatalogueRow r;
    r.id = id;
    r.file.specName = QStringLiteral("nightly");
    r.file.startedAt = startedAt;
    r.arm.config = QStringLiteral("mns32");
    r.arm.arm = QStringLiteral("stress");
    r.arm.armShape = shape;
    r.arm.ttftP99 = { ttftP99, ttftP99 * 0.95, ttftP99 * 1.05 };
    return r;
}

} // namespace

class TestRunTrend : public QObject {
    Q_OBJECT

private slots:
    // A/A: 200 series of 10 steady runs; the series-wide false-alarm rate is what alpha promises.
    void steadySeriesRarelyMoves()
    {
        std::mt19937_64 rng(7);
        int alarms = 0;
        for (int s = 0; s < 200; ++s) {
            double threshold = 0;
            alarms += trendChanges(steadyRuns(10, rng), {}, &threshold).empty() ? 0 : 1;
            QVERIFY(threshold > 2.75 && threshold < 2.79); // z with an upper tail of 0.05 / (2 * 9): 2.77
        }
        QVERIFY2(alarms <= 10, qPrintable(QString::number(alarms))); // 5 % expected at most; 0.5 % here (6 % floor)
    }

    // A planted 20 % step at the 7th run is marked there, in nearly every series.
    void stepIsMarkedWhereItHappens()
    {
        std::mt19937_64 rng(11);
        int found = 0, elsewhere = 0;
        for (int s = 0; s < 200; ++s) {
            std::vector<TrendPoint> points = steadyRuns(10, rng);
            for (std::size_t i = 6; i < points.size(); ++i)
                for (auto* v : { &points[i].figure.value, &points[i].figure.low, &points[i].figure.high })
                    **v *= 1.2;
            const std::vector<TrendChange> changes = trendChanges(points, {}, nullptr);
            for (const TrendChange& c : changes) {
                if (c.index == 6) {
                    ++found;
                    QVERIFY(c.ratio > 1.1 && c.z > 0);
                } else {
                    ++elsewhere;
                }
            }
        }
        QVERIFY2(found >= 190, qPrintable(QString::number(found)));
        QVERIFY2(elsewhere <= 10, qPrintable(QString::number(elsewhere)));
    }

    // One slow run among steady ones: up at it, back down after it.
    void oneSlowRunIsTwoChanges()
    {
        std::vector<TrendPoint> points
            = { pointOf(100, 0.05), pointOf(101, 0.05), pointOf(99, 0.05), pointOf(130, 0.05), pointOf(100, 0.05) };
        const std::vector<TrendChange> changes = trendChanges(points, {}, nullptr);
        QCOMPARE(int(changes.size()), 2);
        QCOMPARE(changes[0].index, 3);
        QVERIFY(changes[0].ratio > 1.25);
        QCOMPARE(changes[1].index, 4);
        QVERIFY(changes[1].ratio < 0.8 && changes[1].z < 0);
    }

    // Runs that scatter well beyond their own intervals (+-1 %, scatter about
    // 2.4 %): the level learns that scatter, so a 6 % move is within it, and a
    // 15 % one is still a change.
    void scatterBetweenRunsWidensTheLevel()
    {
        std::vector<TrendPoint> points;
        for (double v : { 100.0, 103.0, 98.0, 102.0, 97.5, 106.0 })
            points.push_back(pointOf(v, 0.01));
        QVERIFY(trendChanges(points, {}, nullptr).empty());
        // Against the last run alone, 106 is far outside +-1 %: only the scatter keeps it in.
        TrendOptions noFloor;
        noFloor.minChange = 0;
        QCOMPARE(int(trendChanges({ points[4], points[5] }, noFloor, nullptr).size()), 1);
        points.back() = pointOf(115, 0.01);
        const std::vector<TrendChange> changes = trendChanges(points, {}, nullptr);
        QCOMPARE(int(changes.size()), 1);
        QCOMPARE(changes[0].index, 5);
    }

    // The second run of a series: no scatter known, so a move needs twice the floor.
    void secondRunNeedsTwiceTheFloor()
    {
        QVERIFY(trendChanges({ pointOf(100, 0.01), pointOf(108, 0.01) }, {}, nullptr).empty());
        QCOMPARE(int(trendChanges({ pointOf(100, 0.01), pointOf(111, 0.01) }, {}, nullptr).size()), 1);
        // Once a level has two runs, the floor is minChange again.
        QCOMPARE(
            int(trendChanges({ pointOf(100, 0.01), pointOf(101, 0.01), pointOf(108, 0.01) }, {}, nullptr).size()), 1);
    }

    // A move smaller than minChange is never marked, however tight the intervals.
    void smallMovesAreNotChanges()
    {
        std::vector<TrendPoint> points = { pointOf(100, 0.001), pointOf(100, 0.001), pointOf(103, 0.001) };
        QVERIFY(trendChanges(points, {}, nullptr).empty());
        TrendOptions strict;
        strict.minChange = 0.01;
        QCOMPARE(int(trendChanges(points, strict, nullptr).size()), 1);
    }

    // Not finite, zero or missing figures are left out, never a change or a crash.
    void badFiguresAreLeftOut()
    {
        std::vector<TrendPoint> points = { pointOf(100, 0.05), TrendPoint {}, pointOf(100, 0.05) };
        points[1].figure.value = std::nan("");
        points.push_back(pointOf(0, 0.05));
        points.push_back(pointOf(140, 0.05));
        const std::vector<TrendChange> changes = trendChanges(points, {}, nullptr);
        QCOMPARE(int(changes.size()), 1);
        QCOMPARE(changes[0].index, 4);
    }

    // trendOf: one configuration, oldest first, another workload left out with a note.
    void trendOfPicksTheConfiguration()
    {
        std::vector<CatalogueRow> rows = { rowOf(5, QStringLiteral("2026-12-05T10:00:00Z"), 410),
            rowOf(2, QStringLiteral("2026-12-01T10:00:00Z"), 400),
            rowOf(9, QStringLiteral("2026-12-06T10:00:00Z"), 620),
            rowOf(3, QStringLiteral("2026-12-02T10:00:00Z"), 390, QStringLiteral("{\"streams\":8}")),
            rowOf(4, QStringLiteral("2026-12-03T10:00:00Z"), 405) };
        rows.push_back(rowOf(7, QStringLiteral("2026-12-04T10:00:00Z"), 900));
        rows.back().arm.config = QStringLiteral("mns128");
        const RunTrend trend = trendOf(rows, QStringLiteral("nightly"), QStringLiteral("mns32"),
            QStringLiteral("stress"), QStringLiteral("ttft_ms.p99"));
        QCOMPARE(int(trend.points.size()), 4);
        QCOMPARE(trend.points[0].id, 2);
        QCOMPARE(trend.points[1].id, 4);
        QCOMPARE(trend.points[3].id, 9);
        QCOMPARE(trend.notes.size(), 1);
        QVERIFY2(trend.notes[0].contains(QLatin1String("@3")), qPrintable(trend.notes[0]));
        QCOMPARE(int(trend.changes.size()), 1);
        QCOMPARE(trend.changes[0].index, 3);
        QVERIFY(trendOf(rows, QStringLiteral("nightly"), QStringLiteral("mns32"), QStringLiteral("stress"),
            QStringLiteral("colour"))
                    .points.empty());
    }
};

QTEST_GUILESS_MAIN(TestRunTrend)
#include "tst_runtrend.moc"
