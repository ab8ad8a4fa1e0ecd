// The Live page's Rounds table, fed by a replayed run file's `round` lines (the
// path a live run's decisions take too: RunSource::roundDecided), and the
// editor keeping a spec's rounds keys.
#include "editor/experimentdocument.h"
#include "pages/livepage.h"
#include "pages/roundspanel.h"
#include "report/liveexport.h"
#include "source/replayfeed.h"

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

json ratio(const char* config, double value, double lo, double hi, bool decided)
{
    return { { "arm", "stress" }, { "config", config }, { "ratio", "ttft_ms.p99" }, { "value", value },
        { "ci95", { lo, hi } }, { "decided", decided } };
}

json roundOf(int round, const json& ratios, const json& stop)
{
    return { { "type", "round" }, { "round", round }, { "decided", stop == "decided" }, { "stop", stop },
        { "ratios", ratios }, { "max", 10 }, { "half_width", 0.05 }, { "confidence", 1 - 0.05 / 9 } };
}

} // namespace

class TestRoundsPanel : public QObject {
    Q_OBJECT
private slots:
    void growsRoundByRoundAndSaysWhyItStopped()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rounds.jsonl"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const json lines[] = {
            { { "type", "experiment" }, { "schema", 1 }, { "spec", { { "name", "r" } } } },
            roundOf(2, json::array({ ratio("mns64", 1.08, 0.97, 1.2, false) }), nullptr),
            roundOf(3, json::array({ ratio("mns64", 1.09, 1.02, 1.16, false) }), nullptr),
            roundOf(4, json::array({ ratio("mns64", 1.09, 1.05, 1.13, true) }), "decided"),
        };
        for (const json& line : lines)
            file.write(QByteArray::fromStdString(line.dump()) + '\n');
        file.close();

        LivePage live;
        live.resize(1280, 800);
        live.show();
        QVERIFY(live.rounds()->isHidden()); // nothing judged yet
        ReplayFeed feed(path, 0);
        replayIntoLivePage(feed, live);
        QSignalSpy finished(&feed, &ReplayFeed::finished);
        feed.start();
        QVERIFY(finished.wait(10000));

        const QTableWidget* table = live.rounds()->table();
        QVERIFY(live.rounds()->isVisible());
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->columnCount(), 3); // round, stress ttft_ms.p99 of mns64, decision
        QCOMPARE(table->horizontalHeaderItem(1)->text(), QStringLiteral("stress ttft_ms.p99\nmns64"));
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("2"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("1.080 [0.970–1.200]  undecided"));
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("another round"));
        QCOMPARE(table->item(2, 1)->text(), QStringLiteral("1.090 [1.050–1.130]  ✓ decided"));
        QCOMPARE(table->item(2, 2)->text(), QStringLiteral("decided"));
        QCOMPARE(live.rounds()->statusText(),
            QStringLiteral("decided after round 4: every chosen ratio's interval is narrower than ±5 % or clear of "
                           "the gate"));

        live.clear(); // a new experiment starts with an empty table
        QVERIFY(live.rounds()->isHidden());
        QCOMPARE(live.rounds()->table()->rowCount(), 0);
        RoundDecision budget
            = roundDecisionFromLine(roundOf(10, json::array({ ratio("mns64", 1.0, 0.9, 1.1, false) }), "budget"));
        live.addRoundDecision(budget);
        QCOMPARE(live.rounds()->statusText(),
            QStringLiteral("budget of 10 rounds spent: ttft_ms.p99 of stress (mns64) still undecided"));
    }

    void theEditorKeepsTheRoundsKeys()
    {
        json spec = ExperimentDocument::newExperiment();
        spec["configs"].push_back(spec["configs"][0]);
        spec["configs"][1]["label"] = "other";
        spec["repeats"] = { { "min", 2 }, { "max", 4 }, { "until", { { "ratios", { "ttft_ms.p99" } } } } };
        spec["order"] = "interleaved";
        spec["order_seed"] = 9;
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(spec.dump()), &error));
        doc.setValue(QStringLiteral("name"), "renamed"); // an edit rewrites the JSON
        const json saved = doc.toJson();
        QVERIFY(saved["repeats"] == spec["repeats"]);
        QCOMPARE(saved["order"].get<std::string>(), std::string("interleaved"));
        QCOMPARE(saved["order_seed"].get<int>(), 9);
        const auto validated = doc.validate();
        if (const auto* errors = std::get_if<std::vector<SpecError>>(&validated))
            QFAIL(qPrintable(errors->front().toString()));
        QCOMPARE(std::get<ExperimentSpec>(validated).rounds.until->max, 4);
    }
};

QTEST_MAIN(TestRoundsPanel)
#include "tst_roundspanel.moc"
