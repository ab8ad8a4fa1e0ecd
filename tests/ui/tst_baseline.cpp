// A saved run as a baseline on the Live charts: drawn faded at the
// start of the live arm it matches, cut where the next arm begins, with the
// live/baseline ratio in the run table, and the same through `export --chart
// live-NAME --baseline FILE`.
#include "charts/timeseriesplot.h"
#include "feeds/baseline.h"
#include "models/runlistmodel.h"
#include "pages/livepage.h"
#include "report/liveexport.h"
#include "source/replayfeed.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ks;

namespace {

const QString kFixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");

std::shared_ptr<const Baseline> loadBaseline(const QString& path, QString* error = nullptr)
{
    BaselineLoader loader;
    QSignalSpy loaded(&loader, &BaselineLoader::loaded);
    QSignalSpy failed(&loader, &BaselineLoader::failed);
    loader.load(path);
    if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 60000))
        return nullptr;
    if (!failed.isEmpty()) {
        if (error)
            *error = failed.first().at(1).toString();
        return nullptr;
    }
    return loaded.first().first().value<std::shared_ptr<const Baseline>>();
}

/// Replays `path` into `live` as the dashboard does.
void replayInto(LivePage& live, const QString& path)
{
    ReplayFeed feed(path, 0);
    replayIntoLivePage(feed, live);
    QSignalSpy finished(&feed, &ReplayFeed::finished);
    feed.start();
    QVERIFY(finished.wait(60000));
}

QStringList armRuns(LivePage& live)
{
    // Each run of the fixture is an arm of its own (no sweep steps, no steering).
    return live.runs()->runs();
}

} // namespace

class TestBaseline : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qRegisterMetaType<std::shared_ptr<const Baseline>>();
    }

    void matchPrefersNameThenArmThenPosition()
    {
        Baseline b;
        b.arms = { { QStringLiteral("mns32/stress"), {} }, { QStringLiteral("mns32/gentle"), {} },
            { QStringLiteral("adhoc"), {} } };
        QCOMPARE(b.match(QStringLiteral("mns32/gentle"), 0)->run, QStringLiteral("mns32/gentle"));
        QCOMPARE(b.match(QStringLiteral("mns128/stress"), 1)->run, QStringLiteral("mns32/stress")); // same arm
        QCOMPARE(b.match(QStringLiteral("adhoc~c32"), 0)->run, QStringLiteral("adhoc")); // a steered segment
        QCOMPARE(b.match(QStringLiteral("other"), 1)->run, QStringLiteral("mns32/gentle")); // by position
        QVERIFY(b.match(QStringLiteral("other"), 3) == nullptr);

        // Ratios: a steered segment against the same segment, else against its arm's end.
        RunSnapshot armEnd, segment;
        armEnd.ttftMs.count = segment.ttftMs.count = 1;
        armEnd.ttftMs.p50 = 100;
        segment.ttftMs.p50 = 900;
        b.arms[2].snapshots = { armEnd, segment };
        b.finals.insert(QStringLiteral("adhoc"), armEnd);
        b.finals.insert(QStringLiteral("adhoc~c32"), segment);
        QCOMPARE(b.finalFor(QStringLiteral("adhoc~c32"), 0)->ttftMs.p50, 900.0);
        // Not the arm's last snapshot (the c32 segment's): its first run, as the exact ratio at the end uses.
        QCOMPARE(b.finalFor(QStringLiteral("adhoc~c8"), 0)->ttftMs.p50, 100.0);
    }

    void missingOrEmptyFileIsRefused()
    {
        QString error;
        QVERIFY(!loadBaseline(QStringLiteral("/nonexistent/base.jsonl"), &error));
        QCOMPARE(error, QStringLiteral("no such file"));
        QTemporaryDir dir;
        QFile empty(dir.filePath(QStringLiteral("empty.jsonl")));
        QVERIFY(empty.open(QIODevice::WriteOnly));
        empty.close();
        QVERIFY(!loadBaseline(empty.fileName(), &error));
        QVERIFY2(error.contains(QStringLiteral("no run")), qPrintable(error));
    }

    void aRunAgainstItselfLiesOnItsBaseline()
    {
        const auto baseline = loadBaseline(kFixture);
        QVERIFY(baseline);
        LivePage live;
        live.setBaseline(baseline);
        replayInto(live, kFixture);
        const QStringList runs = armRuns(live);
        QVERIFY(runs.size() >= 4);
        TimeSeriesPlot* ttft = live.chart(LiveChart::Ttft);
        int compared = 0;
        for (int i = 0; i < runs.size(); ++i) {
            const QString config = configOfRun(runs[i]);
            const double start = live.xOf(runs[i], 0);
            const double end = i + 1 < runs.size() ? live.xOf(runs[i + 1], 0) : 1e18;
            const QVector<QPointF> base = ttft->points(QStringLiteral("~base/%1/ttft/p50/c").arg(i));
            QVector<QPointF> own;
            for (const QPointF& p : ttft->points(config + QStringLiteral("/p50/c")))
                if (p.x() >= start && p.x() < end && !std::isnan(p.y()))
                    own << p;
            for (const QPointF& p : base)
                QVERIFY2(p.x() >= start && p.x() < end, qPrintable(runs[i])); // aligned at the start, cut at the next
            if (own.isEmpty())
                continue;
            // The same file through the same pipeline: the faded line is the live line.
            QCOMPARE(base.size(), own.size());
            for (qsizetype k = 0; k < base.size(); ++k) {
                QCOMPARE(base[k].x(), own[k].x());
                QCOMPARE(base[k].y(), own[k].y());
            }
            const QString ratio = live.runs()->data(live.runs()->index(i, RunListModel::BaselineColumn)).toString();
            QCOMPARE(ratio, QStringLiteral("TTFT 1.00×  TPOT 1.00×"));
            // Once the run has ended, the ratio is of the exact summaries, as `compare` gives them.
            QVERIFY(live.runs()
                        ->data(live.runs()->index(i, RunListModel::BaselineColumn), Qt::ToolTipRole)
                        .toString()
                        .startsWith(QStringLiteral("Exact p50")));
            ++compared;
        }
        QVERIFY(compared >= 2);
    }

    void aLongerBaselineArmIsCutWhereTheNextLiveArmStarts()
    {
        const auto baseline = loadBaseline(kFixture);
        QVERIFY(baseline);
        const Baseline::Arm* first = baseline->match(QStringLiteral("x/first"), 0);
        QVERIFY(first && first->snapshots.size() > 2);
        const double length = first->snapshots.back().atS;
        QVERIFY(length > 2.0);
        LivePage live;
        live.setBaseline(baseline);
        live.runStarted(QStringLiteral("x/first"));
        TimeSeriesPlot* throughput = live.chart(LiveChart::Throughput);
        QCOMPARE(throughput->points(QStringLiteral("~base/0/req")).back().x(), length); // drawn whole ahead
        RunSnapshot s;
        s.atS = 1.0; // the live arm ran a second: the next one starts at 2 s
        live.addSnapshot(QStringLiteral("x/first"), s);
        live.runStarted(QStringLiteral("x/second"));
        const double next = live.xOf(QStringLiteral("x/second"), 0);
        QCOMPARE(next, 2.0);
        const QVector<QPointF> cut = throughput->points(QStringLiteral("~base/0/req"));
        QVERIFY(!cut.isEmpty());
        QVERIFY2(cut.back().x() < next, qPrintable(QString::number(cut.back().x())));
        QVERIFY(!throughput->points(QStringLiteral("~base/1/req")).isEmpty()); // the second arm's own
        QVERIFY(throughput->points(QStringLiteral("~base/1/req")).front().x() >= next);
    }

    void aLiveConfigNamedBaseKeepsItsLines()
    {
        LivePage live;
        live.setBaseline(loadBaseline(kFixture));
        RunSnapshot s;
        s.atS = 1.0;
        s.windowReqPerS = 3;
        live.addSnapshot(QStringLiteral("base/stress"), s);
        live.setBaseline(nullptr); // removes the baseline's series, not a configuration's called "base"
        QCOMPARE(live.chart(LiveChart::Throughput)->points(QStringLiteral("base/req")).size(), 1);
    }

    void aBaselinePickedLaterIsDrawnAndCanBeRemoved()
    {
        LivePage live;
        replayInto(live, kFixture);
        TimeSeriesPlot* throughput = live.chart(LiveChart::Throughput);
        QVERIFY(throughput->points(QStringLiteral("~base/0/req")).isEmpty());
        live.setBaseline(loadBaseline(kFixture));
        QVERIFY(!throughput->points(QStringLiteral("~base/0/req")).isEmpty());
        QVERIFY(!live.runs()->data(live.runs()->index(0, RunListModel::BaselineColumn)).toString().isEmpty());
        live.setBaseline(nullptr);
        for (const QString& key : throughput->seriesKeys())
            QVERIFY2(!key.startsWith(QStringLiteral("~base/")), qPrintable(key));
        QVERIFY(live.runs()->data(live.runs()->index(0, RunListModel::BaselineColumn)).toString().isEmpty());
    }

    void cliExportDrawsTheBaseline()
    {
        QTemporaryDir dir;
        const QString with = dir.filePath(QStringLiteral("with.svg"));
        const QString without = dir.filePath(QStringLiteral("without.svg"));
        for (const auto& [out, baseline] : { std::pair { with, kFixture }, std::pair { without, QString() } }) {
            QStringList args { QStringLiteral("export"), kFixture, QStringLiteral("--chart"),
                QStringLiteral("live-ttft"), QStringLiteral("--out"), out, QStringLiteral("--size"),
                QStringLiteral("800x400") };
            if (!baseline.isEmpty())
                args << QStringLiteral("--baseline") << baseline;
            QProcess p;
            p.start(QStringLiteral(KNOBSCOPE_BIN), args);
            QVERIFY(p.waitForFinished(120000));
            QCOMPARE(p.exitCode(), 0);
        }
        // The baseline's lines are drawn: more lines (the titles differ too, but they are text).
        auto paths = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll().count("<polyline") : -1;
        };
        QVERIFY2(paths(with) >= paths(without) + 3,
            qPrintable(QStringLiteral("%1 vs %2 paths").arg(paths(with)).arg(paths(without))));

        QProcess missing;
        missing.start(QStringLiteral(KNOBSCOPE_BIN),
            { QStringLiteral("export"), kFixture, QStringLiteral("--chart"), QStringLiteral("live-ttft"),
                QStringLiteral("--out"), dir.filePath(QStringLiteral("x.png")), QStringLiteral("--baseline"),
                dir.filePath(QStringLiteral("nothere.jsonl")) });
        QVERIFY(missing.waitForFinished(60000));
        QCOMPARE(missing.exitCode(), 2);
        QVERIFY(missing.readAllStandardError().contains("no such file"));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x.png"))));
    }
};

QTEST_MAIN(TestBaseline)
#include "tst_baseline.moc"
