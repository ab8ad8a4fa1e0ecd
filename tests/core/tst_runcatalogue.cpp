// The run library (core/library): rows from run files, rebuilt from them by a
// rescan, a corrupt database set aside, moved and missing files, filters, and
// two writers at once.
#include "common/comparisonroundtrip.h"
#include "compare/comparison.h"
#include "library/cataloguematch.h"
#include "library/cataloguepicks.h"
#include "library/runcatalogue.h"
#include "store/runfile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <thread>

using namespace ks;

namespace {

const QString kFixture = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/fixture.jsonl");
const QString kReasoning = QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/reasoning-tools.jsonl");

// A row's content without its ids and catalogue times: what a rebuild must give again.
QString contentOf(const CatalogueRow& r)
{
    auto figure = [](const CatalogueFigure& f) {
        return QStringLiteral("%1[%2,%3]")
            .arg(f.value.value_or(-1), 0, 'g', 12)
            .arg(f.low.value_or(-1), 0, 'g', 12)
            .arg(f.high.value_or(-1), 0, 'g', 12);
    };
    return QStringList { r.file.path, QString::number(r.file.size), r.file.sha256, r.file.specName, r.file.host,
        r.file.knobscopeVersion, r.file.serverVersions, r.file.startedAt, r.file.note, r.arm.config, r.arm.arm,
        r.arm.model, r.arm.knobs, r.arm.armShape, QString::number(r.arm.requests), QString::number(r.arm.errors),
        figure(r.arm.ttftP50), figure(r.arm.ttftP99), figure(r.arm.tpotP50), figure(r.arm.e2eP50),
        QString::number(r.arm.reqPerS.value_or(-1), 'g', 12), r.arm.intervalMethod,
        r.missing ? QStringLiteral("missing") : QString() }
        .join(QLatin1Char('|'));
}

QStringList contentsOf(const std::vector<CatalogueRow>& rows)
{
    QStringList out;
    for (const CatalogueRow& r : rows)
        out << contentOf(r);
    out.sort();
    return out;
}

std::vector<CatalogueRow> allRows(const RunCatalogue& catalogue)
{
    QString error;
    std::vector<CatalogueRow> rows = catalogue.rows({}, &error);
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    return rows;
}

} // namespace

class TestRunCatalogue : public QObject {
    Q_OBJECT

private slots:
    void rowsComeFromTheFile()
    {
        QTemporaryDir dir;
        QString error;
        auto catalogue = RunCatalogue::open(dir.filePath(QStringLiteral("lib.sqlite")), &error);
        QVERIFY2(catalogue, qPrintable(error));
        QVERIFY(catalogue->message().isEmpty());
        RunFile file;
        QVERIFY2(readRunFile(kFixture, &file, &error), qPrintable(error));
        QVERIFY2(catalogue->addFile(kFixture, file, &error), qPrintable(error));
        const std::vector<CatalogueRow> rows = allRows(*catalogue);
        QVERIFY(!rows.empty());
        QSet<QString> configs;
        for (const CatalogueRow& r : rows) {
            configs << r.arm.config;
            QCOMPARE(r.arm.model, QStringLiteral("sim-reasoning"));
            QCOMPARE(r.file.sha256.size(), 64);
            QCOMPARE(r.file.startedAt, QStringLiteral("2026-11-30T02:20:25.215Z"));
            QVERIFY(!r.missing);
            QVERIFY2(r.arm.requests > 0, qPrintable(contentOf(r)));
            if (r.arm.arm == QLatin1String("burst")) {
                // The figure sits inside its own interval, all finite.
                QVERIFY(r.arm.ttftP50.value && r.arm.ttftP50.low && r.arm.ttftP50.high);
                QVERIFY(std::isfinite(*r.arm.ttftP50.value));
                QVERIFY(*r.arm.ttftP50.low <= *r.arm.ttftP50.value && *r.arm.ttftP50.value <= *r.arm.ttftP50.high);
                QCOMPARE(r.arm.intervalMethod, QStringLiteral("within-run"));
                QVERIFY(r.arm.reqPerS.value_or(0) > 0);
            }
        }
        QVERIFY(configs.contains(QStringLiteral("mns2")));
        QVERIFY(configs.size() >= 2);
        // Cataloguing the same file again replaces its rows, never doubles them.
        QVERIFY2(catalogue->addFile(kFixture, file, &error), qPrintable(error));
        QCOMPARE(allRows(*catalogue).size(), rows.size());
        QCOMPARE(catalogue->fileCount(), 1);
    }

    void rescanRebuildsTheSameRows()
    {
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath(QStringLiteral("runs/older")));
        QVERIFY(QFile::copy(kFixture, dir.filePath(QStringLiteral("runs/fixture.jsonl"))));
        QVERIFY(QFile::copy(kReasoning, dir.filePath(QStringLiteral("runs/older/reasoning.jsonl"))));
        QFile junk(dir.filePath(QStringLiteral("runs/notes.jsonl")));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a run file\n");
        junk.close();
        const QString db = dir.filePath(QStringLiteral("lib.sqlite"));
        QString error;
        QStringList first;
        {
            auto catalogue = RunCatalogue::open(db, &error);
            QVERIFY2(catalogue, qPrintable(error));
            const RescanResult scan = catalogue->rescan(dir.filePath(QStringLiteral("runs")));
            QCOMPARE(scan.added, 2);
            QCOMPARE(scan.problems.size(), 1); // notes.jsonl, named
            QVERIFY2(scan.problems.front().contains(QLatin1String("notes.jsonl")), qPrintable(scan.problems.front()));
            first = contentsOf(allRows(*catalogue));
            // A second rescan reads nothing again.
            const RescanResult again = catalogue->rescan(dir.filePath(QStringLiteral("runs")));
            QCOMPARE(again.added, 0);
            QCOMPARE(again.unchanged, 2);
            QCOMPARE(again.problems.size(), 1); // not catalogued, so read (and named) again each time
        }
        QVERIFY(first.size() > 2);
        QVERIFY(QFile::remove(db));
        QFile::remove(db + QStringLiteral("-wal"));
        QFile::remove(db + QStringLiteral("-shm"));
        auto rebuilt = RunCatalogue::open(db, &error);
        QVERIFY2(rebuilt, qPrintable(error));
        QCOMPARE(rebuilt->rescan(dir.filePath(QStringLiteral("runs"))).added, 2);
        QCOMPARE(contentsOf(allRows(*rebuilt)), first);
    }

    void corruptDatabaseIsSetAside()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("lib.sqlite"));
        QFile garbage(db);
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write(QByteArray(8192, '\x5a'));
        garbage.close();
        QString error;
        auto catalogue = RunCatalogue::open(db, &error);
        QVERIFY2(catalogue, qPrintable(error));
        QVERIFY2(catalogue->message().contains(QLatin1String("set aside")), qPrintable(catalogue->message()));
        const QStringList aside = QDir(dir.path()).entryList({ QStringLiteral("lib.sqlite.corrupt-*") });
        QCOMPARE(aside.size(), 1);
        QCOMPARE(QFileInfo(dir.filePath(aside.front())).size(), 8192); // kept, not deleted
        RunFile file;
        QVERIFY(readRunFile(kFixture, &file, &error));
        QVERIFY2(catalogue->addFile(kFixture, file, &error), qPrintable(error));
        QVERIFY(!allRows(*catalogue).empty());
    }

    void movedFileIsFoundByHashAndMissingIsShown()
    {
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath(QStringLiteral("runs")));
        const QString before = dir.filePath(QStringLiteral("runs/a.jsonl"));
        QVERIFY(QFile::copy(kFixture, before));
        QString error;
        auto catalogue = RunCatalogue::open(dir.filePath(QStringLiteral("lib.sqlite")), &error);
        QVERIFY2(catalogue, qPrintable(error));
        QCOMPARE(catalogue->rescan(dir.filePath(QStringLiteral("runs"))).added, 1);
        const qint64 fileId = allRows(*catalogue).front().fileId;
        QVERIFY2(catalogue->setTags(fileId, QStringLiteral("before-upgrade"), &error), qPrintable(error));

        QVERIFY(QFile::rename(before, dir.filePath(QStringLiteral("runs/b.jsonl"))));
        const RescanResult scan = catalogue->rescan(dir.filePath(QStringLiteral("runs")));
        QCOMPARE(scan.moved, 1);
        QCOMPARE(scan.added, 0);
        QCOMPARE(scan.missing, 0);
        const std::vector<CatalogueRow> moved = allRows(*catalogue);
        QCOMPARE(moved.front().fileId, fileId);
        QCOMPARE(moved.front().tags, QStringLiteral("before-upgrade"));
        QVERIFY(moved.front().file.path.endsWith(QLatin1String("b.jsonl")));
        QCOMPARE(catalogue->fileCount(), 1);

        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("runs/b.jsonl"))));
        QCOMPARE(catalogue->rescan(dir.filePath(QStringLiteral("runs"))).missing, 1);
        const std::vector<CatalogueRow> gone = allRows(*catalogue);
        QVERIFY(!gone.empty()); // still listed, marked
        QVERIFY(gone.front().missing);
        CatalogueFilter present;
        present.includeMissing = false;
        QVERIFY(catalogue->rows(present, &error).empty());
    }

    void filters()
    {
        QTemporaryDir dir;
        QString error;
        auto catalogue = RunCatalogue::open(dir.filePath(QStringLiteral("lib.sqlite")), &error);
        QVERIFY2(catalogue, qPrintable(error));
        RunFile file;
        QVERIFY(readRunFile(kFixture, &file, &error));
        QVERIFY2(catalogue->addFile(kFixture, file, &error), qPrintable(error));
        const std::vector<CatalogueRow> everything = allRows(*catalogue);
        const std::size_t all = everything.size();
        // Every filter twice: in SQL, and in memory as the Runs page filters; the same rows.
        auto count = [&](const QStringList& terms) -> int {
            CatalogueFilter filter;
            QString why;
            if (!parseCatalogueFilter(terms, &filter, &why))
                return -1;
            QList<qint64> inSql, inMemory;
            for (const CatalogueRow& r : catalogue->rows(filter, &why))
                inSql << r.id;
            for (const CatalogueRow& r : everything)
                if (catalogueRowMatches(r, filter))
                    inMemory << r.id;
            if (inSql != inMemory) {
                qWarning("%s: SQL gave %lld rows, memory %lld", qPrintable(terms.join(QLatin1Char(' '))),
                    static_cast<long long>(inSql.size()), static_cast<long long>(inMemory.size()));
                return -2;
            }
            return int(inSql.size());
        };
        QCOMPARE(count({ QStringLiteral("model=reasoning") }), int(all));
        QCOMPARE(count({ QStringLiteral("model=sim-8b") }), 0);
        const int mns2 = count({ QStringLiteral("knob.max_num_seqs=2") });
        QVERIFY(mns2 > 0 && mns2 < int(all));
        QCOMPARE(count({ QStringLiteral("config=mns2") }), mns2);
        QCOMPARE(count({ QStringLiteral("since=2026-11-30") }), int(all));
        QCOMPARE(count({ QStringLiteral("since=2026-12-01") }), 0);
        QVERIFY(count({ QStringLiteral("burst") }) > 0);
        CatalogueFilter filter;
        QCOMPARE(count({ QStringLiteral("100%_") }), 0); // LIKE's wildcards are literal
        QCOMPARE(count({ QStringLiteral("MNS2") }), count({ QStringLiteral("mns2") })); // any case
        QCOMPARE(count({ QStringLiteral("knob.max_num_seqs=2"), QStringLiteral("model=reasoning") }), mns2);
        QCOMPARE(count({ QStringLiteral("knob.no_such_knob=2") }), 0);
        const QString two = QStringLiteral("id=%1,@%2").arg(everything[0].id).arg(everything[1].id);
        QCOMPARE(count({ two }), 2);
        QVERIFY(!parseCatalogueFilter({ QStringLiteral("id=twelve") }, &filter, &error));
        QVERIFY(!parseCatalogueFilter({ QStringLiteral("colour=red") }, &filter, &error));
        QVERIFY2(error.contains(QLatin1String("colour")), qPrintable(error));
        QVERIFY(!parseCatalogueFilter({ QStringLiteral("since=yesterday") }, &filter, &error));
    }

    // knob.NAME in memory (a hand-written scan for plain knobs) against SQLite's json_extract.
    void knobValuesMatchSqlite()
    {
        QTemporaryDir dir;
        QString error;
        auto catalogue = RunCatalogue::open(dir.filePath(QStringLiteral("lib.sqlite")), &error);
        QVERIFY2(catalogue, qPrintable(error));
        const QStringList knobs = { QStringLiteral("{\"a\":32}"), QStringLiteral("{\"a\":0.5}"),
            QStringLiteral("{\"a\":true}"), QStringLiteral("{\"a\":\"x y\"}"), QStringLiteral("{\"a\":1e3}"),
            QStringLiteral("{\"b\":{\"a\":3}}"), QStringLiteral("{\"a\":null}"),
            QStringLiteral("{\"a\":\"q\\\"a\\\":1\"}"), QStringLiteral("{\"a\":-4,\"ab\":5}"),
            QStringLiteral("{\"ba\":7,\"a\":2.0}"), QStringLiteral("{\"a\":[1,2]}"), QStringLiteral("{}") };
        CatalogueFile record;
        record.path = QStringLiteral("/nowhere/knobs.jsonl");
        record.sha256 = QStringLiteral("k");
        for (const QString& k : knobs) {
            CatalogueArm arm;
            arm.config = k;
            arm.arm = QStringLiteral("fixed");
            arm.knobs = k;
            record.arms.push_back(arm);
        }
        QVERIFY2(catalogue->add(record, &error), qPrintable(error));
        const std::vector<CatalogueRow> rows = allRows(*catalogue);
        QCOMPARE(int(rows.size()), int(knobs.size()));
        const QStringList values = { QStringLiteral("32"), QStringLiteral("0.5"), QStringLiteral("1"),
            QStringLiteral("x y"), QStringLiteral("1000.0"), QStringLiteral("1000"), QStringLiteral("3"),
            QStringLiteral("q\"a\":1"), QStringLiteral("-4"), QStringLiteral("2.0"), QStringLiteral("2"),
            QStringLiteral("[1,2]"), QStringLiteral("7") };
        int matched = 0;
        for (const QString& name : { QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("ba") }) {
            for (const QString& value : values) {
                CatalogueFilter filter;
                filter.knobName = name;
                filter.knobValue = value;
                QStringList inSql, inMemory;
                error.clear();
                for (const CatalogueRow& r : catalogue->rows(filter, &error))
                    inSql << r.arm.knobs;
                QVERIFY2(error.isEmpty(), qPrintable(error));
                for (const CatalogueRow& r : rows)
                    if (catalogueRowMatches(r, filter))
                        inMemory << r.arm.knobs;
                inSql.sort();
                inMemory.sort();
                QVERIFY2(inSql == inMemory,
                    qPrintable(QStringLiteral("knob.%1=%2: SQL %3, memory %4")
                                   .arg(name, value, inSql.join(QLatin1Char(' ')), inMemory.join(QLatin1Char(' ')))));
                matched += int(inSql.size());
            }
        }
        QVERIFY2(matched >= 8, qPrintable(QString::number(matched))); // the filters do select rows
    }

    // Two catalogued configuration-arms, compared as `compare @ID @ID` and the Runs page do.
    void picksCompareAcrossFiles()
    {
        QTemporaryDir dir;
        QString error;
        const QString copy = dir.filePath(QStringLiteral("yesterday.jsonl"));
        QVERIFY(QFile::copy(kFixture, copy));
        auto catalogue = RunCatalogue::open(dir.filePath(QStringLiteral("lib.sqlite")), &error);
        QVERIFY2(catalogue, qPrintable(error));
        for (const QString& path : { kFixture, copy }) {
            RunFile file;
            QVERIFY(readRunFile(path, &file, &error));
            QVERIFY2(catalogue->addFile(path, file, &error), qPrintable(error));
        }
        const std::vector<CatalogueRow> rows = allRows(*catalogue);
        { // Cataloguing a file again (it was opened again) keeps its ids.
            QStringList before, after;
            for (const CatalogueRow& r : rows)
                before << QStringLiteral("%1 %2 %3").arg(r.id).arg(r.arm.config, r.arm.arm);
            RunFile again;
            QVERIFY(readRunFile(copy, &again, &error));
            QVERIFY2(catalogue->addFile(copy, again, &error), qPrintable(error));
            for (const CatalogueRow& r : allRows(*catalogue))
                after << QStringLiteral("%1 %2 %3").arg(r.id).arg(r.arm.config, r.arm.arm);
            before.sort();
            after.sort();
            QCOMPARE(after, before);
        }
        const CatalogueRow* a = nullptr;
        const CatalogueRow* b = nullptr;
        for (const CatalogueRow& r : rows) {
            if (!a && r.arm.config == QLatin1String("mns2"))
                a = &r;
            if (a && !b && r.fileId != a->fileId && r.arm.config == a->arm.config && r.arm.arm == a->arm.arm)
                b = &r;
        }
        QVERIFY(a && b);
        RunFile picked;
        QVERIFY2(pickedRunFile({ pickOf(*a), pickOf(*b) }, &picked, &error), qPrintable(error));
        QStringList configs;
        for (const RunData& run : picked.runs) {
            QCOMPARE(run.arm, a->arm.arm);
            if (!configs.contains(run.config))
                configs << run.config;
        }
        QCOMPARE(
            configs, QStringList({ QStringLiteral("mns2 @%1").arg(a->id), QStringLiteral("mns2 @%1").arg(b->id) }));
        CompareOptions options;
        options.resamples = 200;
        const nlohmann::json arms = test::comparedChecked(picked, options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(int(arms.size()), 1);
        QCOMPARE(int(arms[0]["configs"].size()), 2);
        // The same file twice: every ratio is exactly 1.
        QCOMPARE(arms[0]["configs"][1]["ratio"]["ttft_ms"]["p50"].get<double>(), 1.0);

        CataloguePick gone = pickOf(*a);
        gone.config = QStringLiteral("no-such-config");
        QVERIFY(!pickedRunFile({ gone }, &picked, &error));
        QVERIFY2(error.contains(QLatin1String("rescan")), qPrintable(error));
    }

    // Two processes' worth of writers (each its own connection) on one database at once.
    void twoWritersAtOnce()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("lib.sqlite"));
        QString error;
        QVERIFY2(RunCatalogue::open(db, &error), qPrintable(error));
        std::atomic<int> failures = 0;
        auto writer = [&](int which) {
            QString why;
            auto catalogue = RunCatalogue::open(db, &why);
            if (!catalogue) {
                ++failures;
                return;
            }
            for (int i = 0; i < 25; ++i) {
                CatalogueFile record;
                record.path = QStringLiteral("/nowhere/%1-%2.jsonl").arg(which).arg(i);
                record.sha256 = QString::number(which * 1000 + i);
                CatalogueArm arm;
                arm.config = QStringLiteral("c%1").arg(i);
                arm.arm = QStringLiteral("stress");
                record.arms = { arm, arm };
                if (!catalogue->add(record, &why)) {
                    qWarning("writer %d: %s", which, qPrintable(why));
                    ++failures;
                }
            }
        };
        std::thread a(writer, 1);
        std::thread b(writer, 2);
        a.join();
        b.join();
        QCOMPARE(failures.load(), 0);
        auto catalogue = RunCatalogue::open(db, &error);
        QVERIFY2(catalogue, qPrintable(error));
        QCOMPARE(catalogue->fileCount(), 50);
        QCOMPARE(allRows(*catalogue).size(), std::size_t(100));
    }
};

QTEST_GUILESS_MAIN(TestRunCatalogue)
#include "tst_runcatalogue.moc"
