// What the dashboard shows and remembers before it starts a server command:
// the plan is the runner's own expansion, its fingerprint changes exactly when
// what would run changes, and the printed command line reads back as the argv.
#include "server/launchplan.h"

#include <QProcess>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

QString q(const char* text)
{
    return QString::fromUtf8(text);
}

QStringList ql(std::initializer_list<const char*> texts)
{
    QStringList out;
    for (const char* text : texts)
        out << q(text);
    return out;
}

json specJson(const json& command, const json& configs, const json& env = nullptr)
{
    json spec = { { "name", "plan" }, { "target", { { "base_url", "http://127.0.0.1:8000" } } },
        { "server", { { "command", command } } }, { "configs", configs },
        { "arms", { { { "name", "a" }, { "mode", "concurrency" }, { "concurrency", 1 }, { "requests", 1 } } } } };
    if (!env.is_null())
        spec["server"]["env"] = env;
    return spec;
}

ExperimentSpec parsed(const json& spec)
{
    auto result = parseExperimentSpec(QByteArray::fromStdString(spec.dump()));
    if (const auto* errors = std::get_if<std::vector<SpecError>>(&result)) {
        for (const SpecError& e : *errors)
            qWarning("%s", qPrintable(e.toString()));
        return {};
    }
    return std::get<ExperimentSpec>(result);
}

const json kCommand = { "sim", "--profile", "{model}", "--max-num-seqs", "{max_num_seqs}" };

json twoConfigs(const char* firstLabel = "a", const char* secondLabel = "b")
{
    return { { { "label", firstLabel }, { "model", "m1" }, { "knobs", { { "max_num_seqs", 4 } } } },
        { { "label", secondLabel }, { "model", "m2" }, { "knobs", { { "max_num_seqs", 16 } } } } };
}

} // namespace

class TestLaunchPlan : public QObject {
    Q_OBJECT
private slots:
    void planIsEveryConfigurationExpanded()
    {
        const LaunchPlan plan
            = launchPlan(parsed(specJson(kCommand, twoConfigs(), { { "SLOTS", "{max_num_seqs}" } })), q("/w"));
        QCOMPARE(plan.workingDirectory, q("/w"));
        QCOMPARE(plan.launches.size(), std::size_t(2));
        QCOMPARE(plan.launches[0].config, QStringLiteral("a"));
        QCOMPARE(plan.launches[0].argv, ql({ "sim", "--profile", "m1", "--max-num-seqs", "4" }));
        QCOMPARE(plan.launches[1].argv, ql({ "sim", "--profile", "m2", "--max-num-seqs", "16" }));
        QCOMPARE(plan.launches[1].env.value(0).second, QStringLiteral("16"));
    }

    void externalTargetLaunchesNothing()
    {
        json spec = specJson(kCommand, twoConfigs());
        spec.erase("server");
        const LaunchPlan plan = launchPlan(parsed(spec), q("/w"));
        QVERIFY(plan.isEmpty());
    }

    void fingerprintFollowsWhatRuns()
    {
        const QByteArray base = launchPlan(parsed(specJson(kCommand, twoConfigs())), q("/w")).fingerprint();
        QCOMPARE(base.size(), 64); // SHA-256 in hex
        // Labels and order do not change what runs.
        json swapped = twoConfigs("x", "y");
        std::swap(swapped[0], swapped[1]);
        QCOMPARE(launchPlan(parsed(specJson(kCommand, swapped)), q("/w")).fingerprint(), base);
        // A changed command, a knob that feeds it, the environment or the directory does.
        json command = kCommand;
        command.push_back("--evil");
        QVERIFY(launchPlan(parsed(specJson(command, twoConfigs())), q("/w")).fingerprint() != base);
        json knob = twoConfigs();
        knob[1]["knobs"]["max_num_seqs"] = 17;
        QVERIFY(launchPlan(parsed(specJson(kCommand, knob)), q("/w")).fingerprint() != base);
        QVERIFY(
            launchPlan(parsed(specJson(kCommand, twoConfigs(), { { "LD_PRELOAD", "x.so" } })), q("/w")).fingerprint()
            != base);
        QVERIFY(launchPlan(parsed(specJson(kCommand, twoConfigs())), q("/other")).fingerprint() != base);
    }

    void commandLineReadsBackAsTheArgv()
    {
        // The line printed for users to copy: a POSIX shell must split it into the same words.
        const QStringList words
            = ql({ "plain", "two words", "it's", "$HOME", "`id`", "a\"b", "", "x;y", "tab\there", "ünï", "{model}" });
        QProcess sh;
        sh.start(
            QStringLiteral("sh"), { QStringLiteral("-c"), QStringLiteral("printf '%s\\n' ") + shellQuoted(words) });
        QVERIFY(sh.waitForFinished(10000));
        QCOMPARE(QString::fromUtf8(sh.readAllStandardOutput()), words.join(QLatin1Char('\n')) + QLatin1Char('\n'));

        const ServerLaunch launch { q("c"), ql({ "env" }), { { q("A"), q("1 2") }, { q("B"), q("x'y") } } };
        sh.start(QStringLiteral("sh"), { QStringLiteral("-c"), commandLine(launch) });
        QVERIFY(sh.waitForFinished(10000));
        const QString out = QString::fromUtf8(sh.readAllStandardOutput());
        QVERIFY2(
            out.contains(QStringLiteral("\nA=1 2\n")) || out.startsWith(QStringLiteral("A=1 2\n")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("B=x'y\n")), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestLaunchPlan)
#include "tst_launchplan.moc"
