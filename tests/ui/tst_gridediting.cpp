// Grids in the experiment editor: list-valued cells, the round trip of a grid
// spec, the configuration count with its time estimate, and the cap's error.
#include "editor/experimentdocument.h"
#include "editor/experimenteditor.h"
#include "editor/runestimate.h"
#include "models/spectablemodel.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

// 2 models x 2 max_num_seqs; a closed-loop and an open-loop arm.
json gridSpec()
{
    json doc = ExperimentDocument::newExperiment();
    doc["configs"] = { { { "label", "{model}-mns{max_num_seqs}" }, { "model", { "sim-1.8b", "sim-8b" } },
        { "knobs", { { "max_num_seqs", { 16, 64 } }, { "note", "kept" } } } } };
    doc["arms"] = { { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 32 }, { "requests", 64 },
                        { "max_tokens", 100 } },
        { { "name", "poisson" }, { "mode", "rate" }, { "rate", 2.0 }, { "requests", 20 }, { "max_tokens", 100 } } };
    return doc;
}

int columnOf(const QAbstractItemModel& model, const QString& header)
{
    for (int c = 0; c < model.columnCount(); ++c) {
        if (model.headerData(c, Qt::Horizontal).toString() == header)
            return c;
    }
    return -1;
}

QString estimateLabel(const ExperimentEditor& editor)
{
    const auto* label = editor.findChild<QLabel*>(QStringLiteral("runEstimate"));
    return label ? label->text() : QStringLiteral("(no estimate label)");
}

} // namespace

class TestGridEditing : public QObject {
    Q_OBJECT
private slots:
    void gridSpecRoundTripsUnchanged()
    {
        ExperimentDocument doc;
        QString error;
        const json original = gridSpec();
        QVERIFY(doc.load(QByteArray::fromStdString(original.dump()), &error));
        const json saved = json::parse(doc.toBytes().toStdString());
        QCOMPARE(QString::fromStdString(saved.dump(1)), QString::fromStdString(original.dump(1)));
        SpecTableModel* configs = doc.configs();
        const int mns = columnOf(*configs, QStringLiteral("max_num_seqs"));
        QCOMPARE(configs->data(configs->index(0, mns)).toString(), QStringLiteral("16, 64"));
        QCOMPARE(configs->data(configs->index(0, 1)).toString(), QStringLiteral("sim-1.8b, sim-8b"));
        // Typing the shown text back changes nothing.
        QVERIFY(configs->setData(configs->index(0, mns), configs->data(configs->index(0, mns))));
        QVERIFY(configs->setData(configs->index(0, 1), configs->data(configs->index(0, 1))));
        QVERIFY(json::parse(doc.toBytes().toStdString()) == original);
    }

    void typedListsBecomeJsonLists()
    {
        ExperimentDocument doc; // one configuration, max_num_seqs 128
        SpecTableModel* configs = doc.configs();
        const int mns = columnOf(*configs, QStringLiteral("max_num_seqs"));
        QVERIFY(mns >= 0);
        QVERIFY(configs->setData(configs->index(0, mns), QStringLiteral("16, 32 ,64")));
        QVERIFY(doc.toJson()["configs"][0]["knobs"]["max_num_seqs"] == json({ 16, 32, 64 }));
        QVERIFY(configs->setData(configs->index(0, mns), QStringLiteral("[8, 0.5, true]")));
        QVERIFY(doc.toJson()["configs"][0]["knobs"]["max_num_seqs"] == json({ 8, 0.5, true }));
        QVERIFY(configs->setData(configs->index(0, mns), QStringLiteral("24")));
        QVERIFY(doc.toJson()["configs"][0]["knobs"]["max_num_seqs"] == json(24)); // one value stays a scalar
        QVERIFY(configs->setData(configs->index(0, 1), QStringLiteral("sim-1.8b, sim-8b")));
        QVERIFY(doc.toJson()["configs"][0]["model"] == json({ "sim-1.8b", "sim-8b" }));
        QVERIFY(configs->setData(configs->index(0, 0), QStringLiteral("a, b")));
        QVERIFY(doc.toJson()["configs"][0]["label"] == json("a, b")); // a label is text, commas and all
    }

    // Stress against mns16: 64 requests in waves of 16, 4 x 100 tokens x 25 ms = 10 s;
    // against mns64 the 32 streams fit: 2 waves = 5 s. Poisson: 20 / 2 per s + one
    // request's 2.5 s = 12.5 s on each. Two models: 2 x (10 + 5) + 4 x 12.5 = 80 s.
    void showsTheCountAndTheTime()
    {
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(gridSpec().dump()), &error));
        ExperimentEditor editor(&doc);
        editor.validateNow();
        QCOMPARE(estimateLabel(editor), QStringLiteral("4 configurations × 2 arms, about 80 s"));
        const auto parsed = doc.validate();
        QCOMPARE(estimateRun(std::get<ExperimentSpec>(parsed)).seconds, 80.0);

        // An automatic sweep's rates come from the server: its time is unknown, not guessed.
        json sweep = gridSpec();
        sweep["arms"].push_back(
            { { "name", "sweep" }, { "mode", "sweep" }, { "over", "rate" }, { "auto", true }, { "requests", 50 } });
        QVERIFY(doc.load(QByteArray::fromStdString(sweep.dump()), &error));
        editor.validateNow();
        QCOMPARE(estimateLabel(editor), QStringLiteral("4 configurations × 3 arms, about 80 s + unknown (sweep)"));

        // Ten grid points and minutes: 10 x 3 arms of 64 requests at concurrency 8 below
        // every slot count: 8 waves x 256 tokens x 25 ms = 51.2 s each, 1536 s = 26 min.
        json big = ExperimentDocument::newExperiment();
        big["configs"][0]["label"] = "mns{max_num_seqs}";
        big["configs"][0]["knobs"]["max_num_seqs"] = { 8, 16, 24, 32, 40, 48, 56, 64, 72, 80 };
        big["arms"] = json::array();
        for (const char* name : { "a", "b", "c" })
            big["arms"].push_back({ { "name", name }, { "mode", "concurrency" }, { "concurrency", 8 },
                { "requests", 64 }, { "max_tokens", 256 } });
        QVERIFY(doc.load(QByteArray::fromStdString(big.dump()), &error));
        editor.validateNow();
        QCOMPARE(estimateLabel(editor), QStringLiteral("10 configurations × 3 arms, about 26 min"));
    }

    // The bundled grid: stress (64 streams, 128 requests of 256 tokens at 6.4 s each) takes
    // 8, 4, 2, 2, 2 waves at mns 16-256: 115.2 s per model; poisson 30 s plus one request's
    // 3.2 s, ten times. 230.4 + 332 = 562.4 s.
    void estimatesTheBundledGrid()
    {
        QFile file(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments/knob-grid.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(file.readAll(), &error));
        ExperimentEditor editor(&doc);
        editor.validateNow();
        QCOMPARE(estimateLabel(editor), QStringLiteral("10 configurations × 2 arms, about 9 min"));
        QVERIFY(qAbs(estimateRun(std::get<ExperimentSpec>(doc.validate())).seconds - 562.4) < 1e-9);
    }

    void theCapIsASpecProblem()
    {
        ExperimentDocument doc;
        ExperimentEditor editor(&doc);
        SpecTableModel* configs = doc.configs();
        QStringList twenty;
        for (int i = 1; i <= 20; ++i)
            twenty << QString::number(i);
        configs->addColumn({ QStringLiteral("knobs.other"), QStringLiteral("other"), SpecTableModel::Kind::Auto, {} });
        QVERIFY(configs->setData(
            configs->index(0, columnOf(*configs, QStringLiteral("max_num_seqs"))), twenty.join(QStringLiteral(", "))));
        QVERIFY(configs->setData(
            configs->index(0, columnOf(*configs, QStringLiteral("other"))), twenty.join(QStringLiteral(","))));
        editor.validateNow();
        const QStringList problems = editor.problemTexts();
        QVERIFY2(problems.contains(QStringLiteral("configs[0]: expands to 400 configurations (20 × 20); at most 256")),
            qPrintable(problems.join(u'\n')));
        QVERIFY(estimateLabel(editor).startsWith(QStringLiteral("How many configurations")));
        QVERIFY(configs->data(configs->index(0, 0), Qt::BackgroundRole).isValid()); // the row is marked
    }

    void aBadElementMarksItsCell()
    {
        ExperimentDocument doc;
        SpecTableModel* configs = doc.configs();
        const int mns = columnOf(*configs, QStringLiteral("max_num_seqs"));
        QVERIFY(configs->setData(configs->index(0, 0), QStringLiteral("mns{max_num_seqs}")));
        QVERIFY(configs->setData(configs->index(0, mns), QStringLiteral("16, lots, 64")));
        QVERIFY(std::holds_alternative<std::vector<SpecError>>(doc.validate()));
        QVERIFY(doc.problems().contains(QStringLiteral("configs[0].knobs.max_num_seqs[1]")));
        const QModelIndex cell = configs->index(0, mns);
        QVERIFY(configs->data(cell, Qt::BackgroundRole).isValid());
        QCOMPARE(configs->data(cell, Qt::ToolTipRole).toString(), QStringLiteral("value 2: expected a whole number"));
    }
};

QTEST_MAIN(TestGridEditing)
#include "tst_gridediting.moc"
