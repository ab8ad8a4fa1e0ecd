#include "spec/experimentspec.h"

#include <QFile>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

#define COMPARE_JSON(actual, expected)                                                                                 \
    QVERIFY2(                                                                                                          \
        (actual) == (expected), qPrintable(QString::fromStdString((actual).dump() + " != " + json(expected).dump())))

// The default server command: {model} only.
const char* const kCommand = "[\"sim\", \"--profile\", \"{model}\"]";

// A valid spec around the given configurations, written as text so the knobs'
// written order (which decides the expansion order) is the test's own. (No
// raw strings here: moc misreads one with a newline before a class.)
QByteArray specWith(const char* configs, const char* command = kCommand)
{
    return QByteArray("{\"name\": \"g\", \"target\": {\"base_url\": \"http://127.0.0.1:8000\"}, \"server\": "
                      "{\"command\": ")
        + command + "}, \"configs\": " + configs
        + ", \"arms\": [{\"name\": \"a\", \"mode\": \"concurrency\", \"concurrency\": 1, \"requests\": 1}]}";
}

std::vector<ConfigSpec> configsOf(const QByteArray& text)
{
    const auto parsed = parseExperimentSpec(text);
    if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed)) {
        qWarning("%s", qPrintable(errors->front().toString()));
        return {};
    }
    return std::get<ExperimentSpec>(parsed).configs;
}

QStringList errorsOf(const QByteArray& text)
{
    const auto parsed = parseExperimentSpec(text);
    QStringList out;
    if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
        for (const SpecError& e : *errors)
            out << e.toString();
    return out;
}

QStringList strings(std::initializer_list<const char*> list)
{
    QStringList out;
    for (const char* s : list)
        out << QString::fromUtf8(s);
    return out;
}

QStringList labelsOf(const std::vector<ConfigSpec>& configs)
{
    QStringList out;
    for (const ConfigSpec& c : configs)
        out << c.label;
    return out;
}

} // namespace

class TestGridExpansion : public QObject {
    Q_OBJECT
private slots:
    // Model first, then the knobs in the order written (zeta before alpha here,
    // the reverse of sorted order), the last list varying fastest.
    void expandsToTheProductInWrittenOrder()
    {
        const auto configs = configsOf(specWith(R"([{"label": "{model}-z{zeta}-a{alpha}", "model": ["m1", "m2"],
            "knobs": {"zeta": [1, 2, 3], "fixed": "x", "alpha": [true, false]}}])"));
        QCOMPARE(configs.size(), std::size_t(2 * 3 * 2));
        QStringList expected;
        for (const char* m : { "m1", "m2" })
            for (const char* z : { "1", "2", "3" })
                for (const char* a : { "true", "false" })
                    expected << QStringLiteral("%1-z%2-a%3").arg(QLatin1String(m), QLatin1String(z), QLatin1String(a));
        QCOMPARE(labelsOf(configs), expected);
        const ConfigSpec& fifth = configs[4]; // m1, zeta 3, alpha true
        QCOMPARE(fifth.model, QStringLiteral("m1"));
        COMPARE_JSON(fifth.knobs, json({ { "zeta", 3 }, { "alpha", true }, { "fixed", "x" } }));
        COMPARE_JSON(fifth.grid,
            json({ { "from", "{model}-z{zeta}-a{alpha}" },
                { "values", { { "model", "m1" }, { "zeta", 3 }, { "alpha", true } } } }));
        for (const ConfigSpec& c : configs)
            QCOMPARE(c.specIndex, std::size_t(0));
    }

    void scalarConfigurationsStayAsTheyAre()
    {
        const auto configs = configsOf(specWith(
            R"([{"label": "plain", "model": "m", "knobs": {"max_num_seqs": 8}},
                {"label": "mns{max_num_seqs}", "model": "m", "knobs": {"max_num_seqs": [16, 32]}}])"));
        QCOMPARE(labelsOf(configs), strings({ "plain", "mns16", "mns32" }));
        QVERIFY(configs[0].grid.is_null());
        QCOMPARE(configs[2].specIndex, std::size_t(1));
        COMPARE_JSON(configs[2].knobs, json({ { "max_num_seqs", 32 } }));
    }

    void defaultLabelsNameEachListsValue()
    {
        const auto configs = configsOf(specWith(
            R"([{"label": "grid", "model": ["sim-1.8b", "sim-8b"], "knobs": {"max_num_seqs": [16, 256], "f": 0.5}}])"));
        QCOMPARE(labelsOf(configs),
            strings({ "grid model=sim-1.8b max_num_seqs=16", "grid model=sim-1.8b max_num_seqs=256",
                "grid model=sim-8b max_num_seqs=16", "grid model=sim-8b max_num_seqs=256" }));
        COMPARE_JSON(configs[3].grid["from"], json("grid"));
    }

    void serverCommandGetsEachPointsValues()
    {
        const QByteArray text = specWith(R"([{"label": "{model}-mns{max_num_seqs}", "model": ["a", "b"],
            "knobs": {"max_num_seqs": [16, 32]}}])",
            R"(["sim", "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}"])");
        const auto parsed = parseExperimentSpec(text);
        const auto* spec = std::get_if<ExperimentSpec>(&parsed);
        QVERIFY(spec);
        QCOMPARE(spec->configs.size(), std::size_t(4));
        QCOMPARE(spec->serverCommand(spec->configs[2]), strings({ "sim", "--profile", "b", "--max-num-seqs", "16" }));
        QCOMPARE(spec->loadSpec(spec->configs[2], spec->arms[0]).model, QStringLiteral("b"));
        QCOMPARE(spec->loadSpec(spec->configs[2], spec->arms[0]).runLabel, QStringLiteral("b-mns16/a"));
    }

    void elementErrorsNameTheElement_data()
    {
        QTest::addColumn<QString>("configs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("wrong type") << R"([{"label": "x{max_num_seqs}", "model": "m",
            "knobs": {"max_num_seqs": [16, 32, 1.5]}}])"
                                    << "configs[0].knobs.max_num_seqs[2]: expected a whole number";
        QTest::newRow("out of range") << R"([{"label": "x{gpu_memory_utilization}", "model": "m",
            "knobs": {"gpu_memory_utilization": [0.5, 2]}}])"
                                      << "configs[0].knobs.gpu_memory_utilization[1]: expected a value in [0.01, 1]";
        QTest::newRow("nested list") << R"([{"label": "x", "model": "m", "knobs": {"k": [1, [2]]}}])"
                                     << "configs[0].knobs.k[1]: expected a number, string or boolean";
        QTest::newRow("empty list") << R"([{"label": "x", "model": "m", "knobs": {"k": []}}])"
                                    << "configs[0].knobs.k: expected a non-empty list of values";
        QTest::newRow("empty models") << R"([{"label": "x", "model": [], "knobs": {}}])"
                                      << "configs[0].model: expected a non-empty list of model names";
        QTest::newRow("model not a string") << R"([{"label": "x", "model": ["a", 3]}])"
                                            << "configs[0].model[1]: expected a non-empty string";
        QTest::newRow("label placeholder") << R"([{"label": "x{slots}", "model": "m", "knobs": {"k": [1, 2]}}])"
                                           << "configs[0].label: placeholder {slots} is neither {model} nor";
        QTest::newRow("over the cap") << R"([{"label": "x", "model": "m", "knobs": {"a": [1,2,3,4,5,6,7,8,9,10],
            "b": [1,2,3,4,5,6,7,8,9,10], "c": [1,2,3,4,5,6,7,8,9,10]}}])"
                                      << "configs[0]: expands to 1,000 configurations (10 × 10 × 10); at most 256";
        QTest::newRow("over the cap in all") << R"([{"label": "x", "model": "m", "knobs": {"a": [1,2,3,4,5,6,7,8],
            "b": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}}, {"label": "y{a}", "model": "m",
            "knobs": {"a": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16], "b": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}}])"
                                             << "configs: the configurations expand to 384 in all (configs[0]: 128, "
                                                "configs[1]: 256); at most 256";
        QTest::newRow("duplicate across configurations")
            << R"([{"label": "mns16", "model": "m"}, {"label": "mns{max_num_seqs}", "model": "m",
                   "knobs": {"max_num_seqs": [8, 16]}}])"
            << "configs[1].label: duplicate label \"mns16\": configs[0] and configs[1] (max_num_seqs=16) both give it";
        QTest::newRow("template leaves out a list")
            << R"([{"label": "mns{max_num_seqs}", "model": ["a", "b"], "knobs": {"max_num_seqs": [8]}}])"
            << "configs[0].label: duplicate label \"mns8\": configs[0] (max_num_seqs=8, model=a) and configs[0] "
               "(max_num_seqs=8, model=b) both give it; put {model} in the label";
        QTest::newRow("command placeholder in a grid")
            << R"([{"label": "g", "model": "m", "knobs": {"k": [1, 2]}}, {"label": "h", "model": "m",
                   "knobs": {"slots": [1, 2]}}])"
            << "server.command[3]: placeholder {slots} has no value in configs[0] (\"g\")";
    }
    void elementErrorsNameTheElement()
    {
        QFETCH(QString, configs);
        QFETCH(QString, expected);
        const bool withSlots = QTest::currentDataTag() == QByteArray("command placeholder in a grid");
        const QByteArray text = configs.toUtf8();
        const QStringList errors
            = errorsOf(withSlots ? specWith(text.constData(), R"(["sim", "--profile", "{model}", "{slots}"])")
                                 : specWith(text.constData()));
        QVERIFY2(std::any_of(errors.begin(), errors.end(), [&](const QString& e) { return e.startsWith(expected); }),
            qPrintable(QStringLiteral("expected '%1', got: %2").arg(expected, errors.join(QStringLiteral(" | ")))));
    }

    // One problem per configuration as written, not one per point of its grid.
    void commandPlaceholderIsReportedOncePerGrid()
    {
        const QStringList errors = errorsOf(specWith(R"([{"label": "g", "model": "m", "knobs": {"k": [1, 2, 3]}}])",
            R"(["sim", "--profile", "{model}", "{slots}"])"));
        QCOMPARE(errors.size(), 1);
    }

    void bundledGridsExpand()
    {
        QFile grid(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments/knob-grid.json"));
        QVERIFY(grid.open(QIODevice::ReadOnly));
        const auto configs = configsOf(grid.readAll());
        QStringList expected;
        for (const char* model : { "sim-1.8b", "sim-8b" })
            for (int mns : { 16, 32, 64, 128, 256 })
                expected << QStringLiteral("%1-mns%2").arg(QLatin1String(model)).arg(mns);
        QCOMPARE(labelsOf(configs), expected);
        QFile llamacpp(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments/llamacpp-template.json"));
        QVERIFY(llamacpp.open(QIODevice::ReadOnly));
        QCOMPARE(
            labelsOf(configsOf(llamacpp.readAll())), strings({ "parallel2", "parallel4", "parallel8", "parallel16" }));
    }

    void exactlyTheCapIsAllowed()
    {
        const auto configs = configsOf(specWith(R"([{"label": "x", "model": "m", "knobs": {"a": [1,2,3,4,5,6,7,8,9,10,
            11,12,13,14,15,16], "b": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}}])"));
        QCOMPARE(configs.size(), std::size_t(256));
    }
};

QTEST_GUILESS_MAIN(TestGridExpansion)
#include "tst_gridexpansion.moc"
