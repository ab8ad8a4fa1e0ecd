// The editor's prompt form: every field writes the `prompts` the
// spec validator accepts, a loaded spec shows in the fields, fields it has no
// widget for survive an edit, and the validator's problems mark the field.
#include "editor/experimentdocument.h"
#include "editor/experimenteditor.h"
#include "editor/promptform.h"
#include "window/mainwindow.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

template <typename T> T* child(QWidget& form, const char* name)
{
    T* widget = form.findChild<T*>(QString::fromLatin1(name));
    if (!widget)
        qFatal("no %s", name);
    return widget;
}

void pick(QComboBox* combo, const char* data)
{
    const int index = combo->findData(QString::fromLatin1(data));
    combo->setCurrentIndex(index >= 0 ? index : combo->findText(QString::fromLatin1(data)));
}

QStringList promptProblems(ExperimentDocument& doc)
{
    doc.validate();
    QStringList out;
    for (auto it = doc.problems().cbegin(); it != doc.problems().cend(); ++it)
        if (it.key().startsWith(QStringLiteral("prompts")))
            out << it.key() + QStringLiteral(": ") + it.value();
    return out;
}

} // namespace

class TestPromptForm : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void syntheticFieldsWriteAValidSpec()
    {
        ExperimentDocument doc;
        PromptForm form(&doc);
        pick(child<QComboBox>(form, "promptDist"), "lognormal");
        child<QSpinBox>(form, "promptWords")->setValue(512);
        child<QDoubleSpinBox>(form, "promptStd")->setValue(128);
        child<QSpinBox>(form, "promptMax")->setValue(2048);
        child<QCheckBox>(form, "promptPrefix")->setChecked(true);
        child<QSpinBox>(form, "promptPrefixes")->setValue(4);
        child<QSpinBox>(form, "promptPrefixWords")->setValue(1024);
        child<QSpinBox>(form, "promptTurns")->setValue(3);
        QLineEdit* seed = child<QLineEdit>(form, "promptSeed");
        seed->selectAll(); // typing replaces the experiment's seed
        QTest::keyClicks(seed, QStringLiteral("7"));
        const json expected = { { "source", "synthetic" },
            { "input_tokens", { { "dist", "lognormal" }, { "mean", 512 }, { "std", 128.0 }, { "max", 2048 } } },
            { "shared_prefix", { { "prefixes", 4 }, { "prefix_tokens", 1024 } } }, { "multi_turn", { { "turns", 3 } } },
            { "seed", 7 } };
        QCOMPARE(QString::fromStdString(doc.value(QStringLiteral("prompts")).dump()),
            QString::fromStdString(expected.dump()));
        QCOMPARE(promptProblems(doc), QStringList());

        // Back to a fixed length without a prefix: the object says only that.
        pick(child<QComboBox>(form, "promptDist"), "fixed");
        child<QSpinBox>(form, "promptWords")->setValue(256);
        child<QCheckBox>(form, "promptPrefix")->setChecked(false);
        child<QSpinBox>(form, "promptTurns")->setValue(1);
        const json fixed = doc.value(QStringLiteral("prompts"));
        QVERIFY(fixed.value("input_tokens", json()) == json(256));
        QVERIFY(!fixed.contains("shared_prefix"));
        QVERIFY(!fixed.contains("multi_turn"));
        QCOMPARE(promptProblems(doc), QStringList());
    }

    void choosingUniformAloneGivesAValidSpec()
    {
        ExperimentDocument doc;
        PromptForm form(&doc);
        pick(child<QComboBox>(form, "promptDist"), "uniform");
        const json length = doc.value(QStringLiteral("prompts"))["input_tokens"];
        QCOMPARE(length.value("dist", std::string()), std::string("uniform"));
        QVERIFY(length.value("min", 0) >= 1);
        QVERIFY(length.value("max", 0) >= length.value("min", 0));
        QCOMPARE(promptProblems(doc), QStringList());
        child<QSpinBox>(form, "promptMin")->setValue(0); // the box does not go below 1 for a uniform length
        QCOMPARE(child<QSpinBox>(form, "promptMin")->value(), 1);
    }

    void wrongTypedPromptsLoadWithoutThrowing()
    {
        ExperimentDocument doc;
        json spec = ExperimentDocument::newExperiment();
        spec["prompts"] = { { "source", 1 }, { "input_tokens", { { "dist", 5 }, { "mean", "x" }, { "min", 1e20 } } },
            { "path", json::array() }, { "format", 2 }, { "shared_prefix", "yes" }, { "multi_turn", 3 },
            { "seed", "s" } };
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(spec.dump()), &error));
        PromptForm form(&doc); // refresh() reads every field: none may throw
        form.refresh();
        QCOMPARE(child<QComboBox>(form, "promptSource")->currentData().toString(), QStringLiteral("synthetic"));
        QVERIFY(!promptProblems(doc).isEmpty()); // the validator, not the form, says what is wrong
    }

    void aPromptFileIsChosenWithItsFormat()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("conversations.jsonl"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"messages": [{"role": "user", "content": "Why is the sky blue?"}]})"
                   "\n");
        file.close();
        ExperimentDocument doc;
        PromptForm form(&doc);
        pick(child<QComboBox>(form, "promptSource"), "file");
        QTest::keyClicks(child<QLineEdit>(form, "promptPath"), path);
        pick(child<QComboBox>(form, "promptFormat"), "openai");
        const json prompts = doc.value(QStringLiteral("prompts"));
        QCOMPARE(prompts.value("source", std::string()), std::string("file"));
        QCOMPARE(QString::fromStdString(prompts.value("path", std::string())), path);
        QCOMPARE(prompts.value("format", std::string()), std::string("openai"));
        QVERIFY(!prompts.contains("input_tokens")); // a synthetic field would be refused for a file
        QCOMPARE(promptProblems(doc), QStringList());

        pick(child<QComboBox>(form, "promptFormat"), "sharegpt"); // an OpenAI file read as ShareGPT is refused
        QVERIFY(!promptProblems(doc).isEmpty());
    }

    void aLoadedSpecShowsInTheFieldsAndUnshownFieldsSurvive()
    {
        ExperimentDocument doc;
        json spec = ExperimentDocument::newExperiment();
        spec["prompts"] = { { "input_tokens", { { "dist", "uniform" }, { "min", 64 }, { "max", 512 } } },
            { "shared_prefix", { { "prefixes", 2 }, { "prefix_tokens", 300 } } }, { "seed", 3 },
            { "comment", "kept" } };
        QString error;
        QVERIFY(doc.load(QByteArray::fromStdString(spec.dump()), &error));
        PromptForm form(&doc);
        QCOMPARE(child<QComboBox>(form, "promptDist")->currentData().toString(), QStringLiteral("uniform"));
        QCOMPARE(child<QSpinBox>(form, "promptMin")->value(), 64);
        QCOMPARE(child<QSpinBox>(form, "promptMax")->value(), 512);
        QVERIFY(child<QCheckBox>(form, "promptPrefix")->isChecked());
        QCOMPARE(child<QSpinBox>(form, "promptPrefixWords")->value(), 300);
        QCOMPARE(child<QLineEdit>(form, "promptSeed")->text(), QStringLiteral("3"));
        QCOMPARE(
            doc.value(QStringLiteral("prompts")).value("comment", std::string()), std::string("kept")); // untouched

        child<QSpinBox>(form, "promptMax")->setValue(600);
        const json prompts = doc.value(QStringLiteral("prompts"));
        QCOMPARE(prompts["input_tokens"]["max"].get<int>(), 600);
        QCOMPARE(prompts["shared_prefix"]["prefix_tokens"].get<int>(), 300);
        QCOMPARE(prompts.value("comment", std::string()), std::string("kept"));
    }

    void theValidatorsProblemMarksTheField()
    {
        ExperimentDocument doc;
        ExperimentEditor editor(&doc);
        auto* form = editor.findChild<PromptForm*>();
        QVERIFY(form);
        pick(child<QComboBox>(*form, "promptDist"), "uniform");
        child<QSpinBox>(*form, "promptMin")->setValue(500);
        child<QSpinBox>(*form, "promptMax")->setValue(100);
        editor.validateNow();
        QSpinBox* max = child<QSpinBox>(*form, "promptMax");
        QVERIFY2(max->toolTip().contains(QStringLiteral("must be at least min")), qPrintable(max->toolTip()));
        QVERIFY(!max->styleSheet().isEmpty());
        QVERIFY(child<QSpinBox>(*form, "promptPrefixes")->styleSheet().isEmpty());
        child<QSpinBox>(*form, "promptMax")->setValue(900);
        editor.validateNow();
        QVERIFY(max->styleSheet().isEmpty());
    }

    void theFormFitsTheEditorAt1280x800()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* form = window.findChild<PromptForm*>();
        QVERIFY(form);
        auto* scroll = qobject_cast<QScrollArea*>(form->parentWidget()->parentWidget()->parentWidget()->parentWidget());
        QVERIFY(scroll);
        // As the docs show it: a lognormal length with a shared prefix (every row of the synthetic form).
        pick(child<QComboBox>(*form, "promptDist"), "lognormal");
        child<QDoubleSpinBox>(*form, "promptStd")->setValue(128);
        child<QCheckBox>(*form, "promptPrefix")->setChecked(true);
        // The rows just shown are laid out: each lies below the row above it (a widget shown but
        // not yet placed by the layout sits at the top of the form).
        const auto below = [form](const char* upper, const char* lower) {
            const QWidget* a = form->findChild<QWidget*>(QString::fromLatin1(upper));
            const QWidget* b = form->findChild<QWidget*>(QString::fromLatin1(lower));
            return a && b && b->isVisible() && b->mapTo(form, QPoint()).y() > a->mapTo(form, QPoint()).y();
        };
        QTRY_VERIFY_WITH_TIMEOUT(below("promptDist", "promptStd") && below("promptPrefix", "promptPrefixes")
                && below("promptPrefixes", "promptPrefixWords") && below("promptPrefixWords", "promptSeed"),
            10000);
        auto* seed = child<QLineEdit>(*form, "promptSeed");
        // Scrolled to again on each try: the splitter gives the editor its first width after the
        // window is shown, and the rows' heights change with it.
        QTRY_VERIFY_WITH_TIMEOUT(
            (scroll->ensureWidgetVisible(seed),
                scroll->viewport()->rect().contains(QRect(seed->mapTo(scroll->viewport(), QPoint()), seed->size()))),
            10000);
        // Every visible field lies inside the editor's viewport: nothing is cut off or needs sideways
        // scrolling (the editor has no horizontal scroll bar), and none is squeezed below its minimum.
        int checked = 0;
        for (QWidget* field : form->findChildren<QWidget*>()) {
            if (!field->isVisible()
                || !(qobject_cast<QSpinBox*>(field) || qobject_cast<QComboBox*>(field)
                    || qobject_cast<QLineEdit*>(field)))
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
        QVERIFY(checked >= 8);
        if (const QString shots = qEnvironmentVariable("KNOBSCOPE_SHOT_DIR"); !shots.isEmpty())
            window.grab().save(shots + QStringLiteral("/editor-prompts.png"));
    }
};

QTEST_MAIN(TestPromptForm)
#include "tst_promptform.moc"
