// The editor's search form: the bundled searches (one knob and several) load into it and come back
// as the same JSON after an edit undone, a search over two knobs is built from the fields alone and
// passes the validator, a second knob turns the one-knob form into "knobs", the validator's problems
// mark the field, the estimate counts the budget, and the form fits the editor at 1280x800.
#include "editor/experimentdocument.h"
#include "editor/experimenteditor.h"
#include "editor/searchform.h"
#include "window/mainwindow.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

using namespace ks;
using nlohmann::json;

namespace {

template <typename T> T* child(QWidget& parent, const QString& name)
{
    T* widget = parent.findChild<T*>(name);
    if (!widget)
        qFatal("no %s", qPrintable(name));
    return widget;
}

QByteArray bundled(const char* name)
{
    QFile file(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments/") + QLatin1String(name));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", name);
    return file.readAll();
}

QStringList searchProblems(ExperimentDocument& doc)
{
    doc.validate();
    QStringList out;
    for (auto it = doc.problems().cbegin(); it != doc.problems().cend(); ++it)
        out << it.key() + QStringLiteral(": ") + it.value();
    return out;
}

} // namespace

class TestSearchForm : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aBundledSearchComesBackAsTheSameJson_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("knobs");
        QTest::newRow("one knob") << QStringLiteral("knob-search.json") << 1;
        QTest::newRow("two knobs") << QStringLiteral("knob-search-2d.json") << 2;
        QTest::newRow("llama.cpp") << QStringLiteral("real-search-2d.json") << 2;
    }
    void aBundledSearchComesBackAsTheSameJson()
    {
        QFETCH(QString, file);
        QFETCH(int, knobs);
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(bundled(qPrintable(file)), &error));
        const json before = doc.toJson();
        ExperimentEditor editor(&doc);
        QVERIFY(child<QGroupBox>(editor, QStringLiteral("searchBox"))->isChecked());
        auto* form = editor.findChild<SearchForm*>();
        QVERIFY(form);
        for (int i = 0; i < knobs; ++i)
            QVERIFY(form->findChild<QLineEdit*>(QStringLiteral("searchKnob%1").arg(i)));
        QVERIFY(!form->findChild<QLineEdit*>(QStringLiteral("searchKnob%1").arg(knobs)));
        QCOMPARE(
            child<QSpinBox>(*form, QStringLiteral("searchBudget"))->value(), before["search"]["budget"].get<int>());
        QCOMPARE(child<QComboBox>(*form, QStringLiteral("searchArm"))->currentText(), QStringLiteral("stress"));

        // Each field changed and set back: the document's JSON is what was loaded, to the byte.
        auto* budget = child<QSpinBox>(*form, QStringLiteral("searchBudget"));
        budget->setValue(budget->value() + 1);
        QCOMPARE(doc.toJson()["search"]["budget"].get<int>(), before["search"]["budget"].get<int>() + 1);
        budget->setValue(budget->value() - 1);
        for (int i = 0; i < knobs; ++i) {
            auto* min = child<QDoubleSpinBox>(*form, QStringLiteral("searchMin%1").arg(i));
            min->setValue(min->value() + 1);
            QVERIFY(doc.toJson() != before);
            min->setValue(min->value() - 1);
            auto* cheaper = child<QComboBox>(*form, QStringLiteral("searchCheaper%1").arg(i));
            cheaper->setCurrentIndex(1);
            cheaper->setCurrentIndex(0);
        }
        auto* tolerance = child<QDoubleSpinBox>(*form, QStringLiteral("searchTolerance"));
        tolerance->setValue(5);
        QCOMPARE(doc.toJson()["search"]["tolerance"].get<double>(), 0.05);
        tolerance->setValue(2);
        QCOMPARE(doc.toJson().dump(), before.dump());
        QVERIFY2(searchProblems(doc).isEmpty(), qPrintable(searchProblems(doc).join(QLatin1Char('\n'))));
    }

    void aSearchOverTwoKnobsIsBuiltFromTheFields()
    {
        ExperimentDocument doc;
        doc.setValue(QStringLiteral("server.command"),
            json { "knobscope-sim", "--port", "8000", "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}",
                "--max-num-batched-tokens", "{max_num_batched_tokens}" });
        doc.setValue(QStringLiteral("server.restart_between_configs"), true);
        ExperimentEditor editor(&doc);
        auto* box = child<QGroupBox>(editor, QStringLiteral("searchBox"));
        QVERIFY(!box->isChecked());
        box->setChecked(true);
        // The first configuration's max_num_seqs (128) is the knob to start from, over a log2 range around it.
        auto* form = editor.findChild<SearchForm*>();
        QCOMPARE(child<QLineEdit>(*form, QStringLiteral("searchKnob0"))->text(), QStringLiteral("max_num_seqs"));
        QCOMPARE(child<QDoubleSpinBox>(*form, QStringLiteral("searchMin0"))->value(), 16.0);
        QCOMPARE(child<QDoubleSpinBox>(*form, QStringLiteral("searchMax0"))->value(), 256.0);
        // The configuration has no max_num_batched_tokens: until the search sets it, the command's
        // placeholder has no value.
        QCOMPARE(searchProblems(doc).size(), 1);
        QVERIFY2(searchProblems(doc).front().startsWith(QStringLiteral("server.command[8]: placeholder")),
            qPrintable(searchProblems(doc).front()));

        QTest::mouseClick(child<QPushButton>(*form, QStringLiteral("searchAddKnob")), Qt::LeftButton);
        auto* name = child<QLineEdit>(*form, QStringLiteral("searchKnob1"));
        QTest::keyClicks(name, QStringLiteral("max_num_batched_tokens"));
        child<QDoubleSpinBox>(*form, QStringLiteral("searchMin1"))->setValue(512);
        child<QDoubleSpinBox>(*form, QStringLiteral("searchMax1"))->setValue(8192);
        child<QComboBox>(*form, QStringLiteral("searchCheaper1"))->setCurrentText(QStringLiteral("higher"));
        child<QComboBox>(*form, QStringLiteral("searchObjective"))->setCurrentText(QStringLiteral("ttft_ms.p99"));
        child<QComboBox>(*form, QStringLiteral("searchDirection"))->setCurrentIndex(1);
        child<QSpinBox>(*form, QStringLiteral("searchBudget"))->setValue(12);

        const json search = doc.toJson()["search"];
        QCOMPARE(search.dump(),
            json({ { "knobs",
                       { { "max_num_batched_tokens",
                             { { "min", 512 }, { "max", 8192 }, { "scale", "log2" }, { "integer", true },
                                 { "cheaper", "higher" } } },
                           { "max_num_seqs",
                               { { "min", 16 }, { "max", 256 }, { "scale", "log2" }, { "integer", true } } } } },
                     { "arm", "stress" }, { "objective", "ttft_ms.p99" }, { "minimize", true }, { "budget", 12 } })
                .dump());
        const auto parsed = doc.validate();
        const auto* spec = std::get_if<ExperimentSpec>(&parsed);
        QVERIFY2(spec, qPrintable(searchProblems(doc).join(QLatin1Char('\n'))));
        QVERIFY(spec->search && spec->search->multi());
        QCOMPARE(spec->search->knobs.size(), std::size_t(2));
        QCOMPARE(spec->search->knobs[0].name, QStringLiteral("max_num_batched_tokens"));
        QVERIFY(spec->search->knobs[0].cheaperHigher && spec->search->knobs[0].log2 && spec->search->knobs[0].integer);
        QCOMPARE(spec->search->budget, 12);
        QVERIFY(spec->search->minimize);

        editor.validateNow();
        const QString estimate = child<QLabel>(editor, QStringLiteral("runEstimate"))->text();
        QVERIFY2(
            estimate.startsWith(QStringLiteral("a search of at most 12 probes × 1 arm, about ")), qPrintable(estimate));

        box->setChecked(false);
        QVERIFY(doc.value(QStringLiteral("search")).is_null());
    }

    void aSecondKnobTurnsTheOneKnobFormIntoKnobs()
    {
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(bundled("knob-search.json"), &error));
        const json before = doc.toJson();
        ExperimentEditor editor(&doc);
        auto* form = editor.findChild<SearchForm*>();
        QTest::mouseClick(child<QPushButton>(*form, QStringLiteral("searchAddKnob")), Qt::LeftButton);
        QTest::keyClicks(
            child<QLineEdit>(*form, QStringLiteral("searchKnob1")), QStringLiteral("max_num_batched_tokens"));
        const json search = doc.toJson()["search"];
        QVERIFY(!search.contains("knob") && !search.contains("min") && !search.contains("scale"));
        QCOMPARE(search["knobs"]["max_num_seqs"].dump(),
            json({ { "min", 8 }, { "max", 128 }, { "scale", "log2" }, { "integer", true } }).dump());
        QCOMPARE(search["knobs"]["max_num_batched_tokens"]["max"].get<int>(), 64);
        // The command has no {max_num_batched_tokens}: the validator names the knob, and its row shows it.
        editor.validateNow();
        auto* name = child<QLineEdit>(*form, QStringLiteral("searchKnob1"));
        QVERIFY(!name->styleSheet().isEmpty());
        QVERIFY2(name->toolTip().contains(QStringLiteral("placeholder")), qPrintable(name->toolTip()));
        // Removed again: the one-knob form as it was.
        const auto removes = form->findChildren<QToolButton*>();
        QCOMPARE(removes.size(), 2);
        QTest::mouseClick(removes.last(), Qt::LeftButton);
        QCOMPARE(doc.toJson().dump(), before.dump());
    }

    void theValidatorsProblemsMarkTheirFields()
    {
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(bundled("knob-search-2d.json"), &error));
        ExperimentEditor editor(&doc);
        auto* form = editor.findChild<SearchForm*>();
        auto* min = child<QDoubleSpinBox>(*form, QStringLiteral("searchMin1"));
        auto* max = child<QDoubleSpinBox>(*form, QStringLiteral("searchMax1"));
        min->setValue(300);
        max->setValue(200);
        auto* budget = child<QSpinBox>(*form, QStringLiteral("searchBudget"));
        budget->setValue(2);
        editor.validateNow();
        QVERIFY(!min->styleSheet().isEmpty() && !max->styleSheet().isEmpty());
        QVERIFY2(
            child<QLineEdit>(*form, QStringLiteral("searchKnob1"))->toolTip().contains(QStringLiteral("below max")),
            qPrintable(child<QLineEdit>(*form, QStringLiteral("searchKnob1"))->toolTip()));
        QVERIFY(child<QDoubleSpinBox>(*form, QStringLiteral("searchMin0"))->styleSheet().isEmpty());
        QVERIFY2(budget->toolTip().contains(QStringLiteral("the knobs plus one")), qPrintable(budget->toolTip()));
        // A log2 range from 0 is rejected at its min.
        max->setValue(400);
        min->setValue(0);
        budget->setValue(10);
        editor.validateNow();
        QVERIFY2(min->toolTip().contains(QStringLiteral("log2")), qPrintable(min->toolTip()));
        QVERIFY(max->styleSheet().isEmpty() && budget->styleSheet().isEmpty());
        min->setValue(256);
        editor.validateNow();
        QVERIFY(min->styleSheet().isEmpty());
        QVERIFY2(searchProblems(doc).isEmpty(), qPrintable(searchProblems(doc).join(QLatin1Char('\n'))));
    }

    void theFormFitsTheEditorAt1280x800()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* box = window.findChild<QGroupBox*>(QStringLiteral("searchBox"));
        QVERIFY(box);
        box->setChecked(true);
        auto* form = window.findChild<SearchForm*>();
        QTest::mouseClick(child<QPushButton>(*form, QStringLiteral("searchAddKnob")), Qt::LeftButton);
        auto* scroll = qobject_cast<QScrollArea*>(box->parentWidget()->parentWidget()->parentWidget());
        QVERIFY(scroll);
        auto* last = child<QSpinBox>(*form, QStringLiteral("searchBudget"));
        QTRY_VERIFY_WITH_TIMEOUT((scroll->ensureWidgetVisible(last),
                                     last->isVisible()
                                         && scroll->viewport()->rect().contains(
                                             QRect(last->mapTo(scroll->viewport(), QPoint()), last->size()))),
            10000);
        int checked = 0;
        for (QWidget* field : form->findChildren<QWidget*>()) {
            if (!field->isVisible()
                || !(qobject_cast<QAbstractSpinBox*>(field) || qobject_cast<QComboBox*>(field)
                    || qobject_cast<QLineEdit*>(field) || qobject_cast<QToolButton*>(field)))
                continue;
            const QPoint right = field->mapTo(scroll->viewport(), QPoint(field->width(), 0));
            QVERIFY2(right.x() <= scroll->viewport()->width(),
                qPrintable(QStringLiteral("%1 ends at %2 of %3")
                               .arg(field->objectName())
                               .arg(right.x())
                               .arg(scroll->viewport()->width())));
            QVERIFY2(field->width() >= field->minimumSizeHint().width(), qPrintable(field->objectName()));
            ++checked;
        }
        QVERIFY2(checked >= 12, qPrintable(QString::number(checked)));
    }
};

QTEST_MAIN(TestSearchForm)
#include "tst_searchform.moc"
