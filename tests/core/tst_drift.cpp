// Probe sets, divergence positions and drift analysis on hand-made data.
#include "drift/driftanalysis.h"
#include "workload/probeset.h"

#include <QTest>

using namespace ks;

namespace {

ProbeOutput output(const char* id, const QByteArray& content, const QByteArray& reasoning = {})
{
    ProbeOutput o;
    o.probe = QString::fromUtf8(id);
    o.ok = true;
    o.content = content;
    o.reasoning = reasoning;
    o.contentSha256 = QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex();
    if (!reasoning.isEmpty())
        o.reasoningSha256 = QCryptographicHash::hash(reasoning, QCryptographicHash::Sha256).toHex();
    return o;
}

ProbePass pass(const char* config, const char* model, int restart, int repeat, std::vector<ProbeOutput> outputs)
{
    ProbePass p;
    p.config = QString::fromUtf8(config);
    p.model = QString::fromUtf8(model);
    p.restart = restart;
    p.repeat = repeat;
    p.outputs = std::move(outputs);
    return p;
}

QString problemOf(const std::variant<ProbeSet, QString>& loaded)
{
    const QString* problem = std::get_if<QString>(&loaded);
    return problem ? *problem : QString();
}

QStringList sorted(QStringList l)
{
    l.sort();
    return l;
}

} // namespace

class TestDrift : public QObject {
    Q_OBJECT
private slots:
    void divergence_data()
    {
        QTest::addColumn<QByteArray>("reference");
        QTest::addColumn<QByteArray>("other");
        QTest::addColumn<qsizetype>("byte");
        QTest::addColumn<qsizetype>("character");
        QTest::addColumn<qsizetype>("word");
        QTest::newRow("equal") << QByteArray("same text") << QByteArray("same text") << qsizetype(-1) << qsizetype(-1)
                               << qsizetype(-1);
        QTest::newRow("first char") << QByteArray("abc") << QByteArray("xbc") << qsizetype(0) << qsizetype(0)
                                    << qsizetype(0);
        QTest::newRow("inside second word")
            << QByteArray("hello world") << QByteArray("hello wordy") << qsizetype(9) << qsizetype(9) << qsizetype(1);
        QTest::newRow("at a word start") << QByteArray("one two three") << QByteArray("one two four") << qsizetype(8)
                                         << qsizetype(8) << qsizetype(2);
        QTest::newRow("one is a prefix") << QByteArray("one two") << QByteArray("one two three") << qsizetype(7)
                                         << qsizetype(7) << qsizetype(1);
        // "ö" (C3 B6) against "ü" (C3 BC): the shared lead byte is not a shared character.
        QTest::newRow("inside a 2-byte char")
            << QByteArray("göl su") << QByteArray("gül su") << qsizetype(1) << qsizetype(1) << qsizetype(0);
        // 東京 / 東北: three bytes each; 京 and 北 share no byte but 東 is shared.
        QTest::newRow("after a 3-byte char")
            << QByteArray("x 東京") << QByteArray("x 東北") << qsizetype(5) << qsizetype(3) << qsizetype(1);
        // İ (C4 B0) against ı (C4 B1) at the start of the second word.
        QTest::newRow("turkish dotted I") << QByteArray("şehir İstanbul") << QByteArray("şehir ıstanbul")
                                          << qsizetype(7) << qsizetype(6) << qsizetype(1);
    }
    void divergence()
    {
        QFETCH(QByteArray, reference);
        QFETCH(QByteArray, other);
        QFETCH(qsizetype, byte);
        QFETCH(qsizetype, character);
        QFETCH(qsizetype, word);
        const Divergence d = findDivergence(reference, other);
        QCOMPARE(d.byte, byte);
        QCOMPARE(d.character, character);
        QCOMPARE(d.word, word);
        if (byte >= 0) {
            QVERIFY(d.referenceExcerpt.contains(QStringLiteral("⟦")));
            QVERIFY(!d.referenceExcerpt.contains(QChar::ReplacementCharacter)); // never cut inside a character
            QVERIFY(!d.otherExcerpt.contains(QChar::ReplacementCharacter));
        }
    }

    void excerptsAreBounded()
    {
        const QByteArray a = QByteArray(200, 'a') + "X" + QByteArray(200, 'b');
        const QByteArray b = QByteArray(200, 'a') + "Y" + QByteArray(200, 'b');
        const Divergence d = findDivergence(a, b, 10);
        QCOMPARE(d.byte, qsizetype(200));
        QCOMPARE(d.referenceExcerpt, QStringLiteral("…aaaaaaaaaa⟦Xbbbbbbbbb⟧…"));
        QCOMPARE(d.otherExcerpt, QStringLiteral("…aaaaaaaaaa⟦Ybbbbbbbbb⟧…"));
    }

    void withinRestartAndConfig()
    {
        // Two configurations of one model; c1 is the reference.
        std::vector<ProbePass> passes;
        passes.push_back(pass("c1", "m", 0, 0, { output("p1", "a b c"), output("p2", "x y"), output("p3", "q") }));
        passes.push_back(pass("c1", "m", 0, 1, { output("p1", "a b d"), output("p2", "x y"), output("p3", "q") }));
        passes.push_back(pass("c1", "m", 1, 0, { output("p1", "a b c"), output("p2", "x z"), output("p3", "q") }));
        passes.push_back(pass("c2", "m", 0, 0, { output("p1", "a b c"), output("p2", "x y"), output("p3", "r") }));
        const DriftReport r = analyzeDrift(passes, { { "set", "t" }, { "set_version", "1" } });
        QCOMPARE(r.configs.size(), std::size_t(2));
        const ConfigDrift& c1 = r.configs[0];
        QVERIFY(c1.isReference);
        QCOMPARE(c1.withinRun, QStringList { QStringLiteral("p1") });
        QCOMPARE(c1.acrossRestart, QStringList { QStringLiteral("p2") });
        QCOMPARE(sorted(c1.mismatches), (QStringList { QStringLiteral("p1"), QStringLiteral("p2") }));
        QCOMPARE(c1.repeats, 2);
        QCOMPARE(c1.restarts, 1);
        const ConfigDrift& c2 = r.configs[1];
        QVERIFY(!c2.isReference);
        QCOMPARE(c2.acrossConfig, QStringList { QStringLiteral("p3") });
        QCOMPARE(c2.mismatches, QStringList { QStringLiteral("p3") });
        QVERIFY(c2.withinRun.isEmpty());

        QCOMPARE(r.cells[0][1], ProbeState::Changed); // p1, c1 repeat 2
        QCOMPARE(r.cells[0][0], ProbeState::Same);
        QCOMPARE(r.diffs.size(), std::size_t(3));
        QCOMPARE(r.diffs[0].probe, QStringLiteral("p1"));
        QCOMPARE(r.diffs[0].divergence.word, qsizetype(2));
        QCOMPARE(r.diffs[0].channel, QStringLiteral("content"));

        const nlohmann::json j = r.toJson();
        QCOMPARE(j["runs"][0]["within_run"].get<int>(), 1);
        QCOMPARE(j["runs"][1]["across_config"].get<int>(), 1);
        QCOMPARE(j["matrix"]["rows"][0]["states"][1].get<std::string>(), std::string("changed"));
    }

    void modelsHaveTheirOwnReference()
    {
        std::vector<ProbePass> passes;
        passes.push_back(pass("small", "m1", 0, 0, { output("p1", "one") }));
        passes.push_back(pass("large", "m2", 0, 0, { output("p1", "two") }));
        const DriftReport r = analyzeDrift(passes, {});
        QVERIFY(r.configs[0].isReference);
        QVERIFY(r.configs[1].isReference); // different models are not expected to agree
        QVERIFY(r.configs[1].mismatches.isEmpty());
    }

    void reasoningChannelIsComparedToo()
    {
        std::vector<ProbePass> passes;
        passes.push_back(pass("c", "m", 0, 0, { output("p", "answer", "think A") }));
        passes.push_back(pass("c", "m", 0, 1, { output("p", "answer", "think B") }));
        const DriftReport r = analyzeDrift(passes, {});
        QCOMPARE(r.configs[0].withinRun, QStringList { QStringLiteral("p") });
        QCOMPARE(r.diffs.front().channel, QStringLiteral("reasoning"));
        QCOMPARE(r.diffs.front().divergence.character, qsizetype(6));
    }

    void errorsAreNotMismatches()
    {
        std::vector<ProbePass> passes;
        ProbeOutput failed = output("p", "");
        failed.ok = false;
        failed.error = QStringLiteral("transport");
        passes.push_back(pass("c", "m", 0, 0, { output("p", "text") }));
        passes.push_back(pass("c", "m", 0, 1, { failed }));
        const DriftReport r = analyzeDrift(passes, {});
        QVERIFY(r.configs[0].mismatches.isEmpty());
        QCOMPARE(r.configs[0].errors, 1);
        QCOMPARE(r.cells[0][1], ProbeState::Error);
    }

    void changedProbeSetIsRefused()
    {
        const nlohmann::json a = { { "set", "quality-50" }, { "set_version", "1" }, { "sha256", "aaaa" } };
        nlohmann::json b = a;
        QString problem;
        QVERIFY(sameProbeSet(a, b, &problem));
        b["sha256"] = "bbbb";
        QVERIFY(!sameProbeSet(a, b, &problem));
        QVERIFY2(problem.contains(QStringLiteral("different probe sets")), qPrintable(problem));
    }

    void builtinSet()
    {
        auto loaded = loadProbeSet(QStringLiteral("builtin:quality-50"));
        QVERIFY2(std::holds_alternative<ProbeSet>(loaded), qPrintable(problemOf(loaded)));
        const ProbeSet& set = std::get<ProbeSet>(loaded);
        QCOMPARE(set.probes.size(), std::size_t(50));
        QCOMPARE(set.name, QStringLiteral("quality-50"));
        QCOMPARE(set.version, QStringLiteral("1"));
        QCOMPARE(set.sha256.size(), 64);
        QStringList categories;
        for (const Probe& p : set.probes)
            categories << p.category;
        for (const char* c : { "facts", "arithmetic", "code", "summary", "turkish", "japanese", "chat" })
            QVERIFY2(categories.contains(QLatin1String(c)), c);
    }

    void fileSet()
    {
        auto loaded = loadProbeSet(QStringLiteral(KNOBSCOPE_TEST_DATA "/probes/tiny.jsonl"));
        QVERIFY2(std::holds_alternative<ProbeSet>(loaded), qPrintable(problemOf(loaded)));
        const ProbeSet& set = std::get<ProbeSet>(loaded);
        QCOMPARE(set.name, QStringLiteral("tiny"));
        QCOMPARE(set.version, QStringLiteral("2"));
        QCOMPARE(set.probes[1].prompt, QStringLiteral("Merhaba, nasılsın?")); // from the last message
        QVERIFY(set.probes[1].messages.is_array());
        QVERIFY(std::holds_alternative<QString>(loadProbeSet(QStringLiteral("/nonexistent/probes.jsonl"))));
        QVERIFY(std::holds_alternative<QString>(loadProbeSet(QStringLiteral("builtin:nope"))));
    }

    void malformedSets_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QByteArray("{\"id\":\"a\",\"prompt\":\"x\"}\n{oops\n") << QStringLiteral("line 2");
        QTest::newRow("missing id") << QByteArray("{\"prompt\":\"x\"}\n") << QStringLiteral("line 1: 'id'");
        QTest::newRow("duplicate id") << QByteArray(
            "{\"id\":\"a\",\"prompt\":\"x\"}\n{\"id\":\"a\",\"prompt\":\"y\"}\n")
                                      << QStringLiteral("line 2: duplicate id 'a'");
        QTest::newRow("no prompt") << QByteArray("\n\n{\"id\":\"a\"}\n") << QStringLiteral("line 3");
        QTest::newRow("bad messages") << QByteArray("{\"id\":\"a\",\"prompt\":\"x\",\"messages\":[{\"role\":1}]}\n")
                                      << QStringLiteral("line 1: 'messages'");
        QTest::newRow("late header") << QByteArray(
            "{\"id\":\"a\",\"prompt\":\"x\"}\n{\"probe_set\":\"s\",\"set_version\":\"1\"}\n")
                                     << QStringLiteral("line 2: the probe_set header");
        QTest::newRow("empty") << QByteArray("\n") << QStringLiteral("no probes");
    }
    void malformedSets()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        auto parsed = parseProbeSet(text, QStringLiteral("mine.jsonl"));
        QVERIFY(std::holds_alternative<QString>(parsed));
        QVERIFY2(problemOf(parsed).contains(expected), qPrintable(problemOf(parsed)));
    }
};

QTEST_GUILESS_MAIN(TestDrift)
#include "tst_drift.moc"
