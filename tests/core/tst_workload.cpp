#include "client/requestfactory.h"
#include "common/comparisonroundtrip.h"
#include "compare/comparison.h"
#include "spec/experimentspec.h"
#include "workload/workload.h"

#include <QTemporaryDir>
#include <QTest>

#include <QCryptographicHash>
#include <QFile>

#include <numeric>
#include <set>

using namespace ks;
using json = nlohmann::json;

namespace {

using Errors = std::vector<std::pair<QString, QString>>;

QString joined(const Errors& errors)
{
    QStringList out;
    for (const auto& [path, message] : errors)
        out << path + QStringLiteral(": ") + message;
    return out.join(QLatin1Char('\n'));
}

QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& bytes)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(bytes);
    return path;
}

QString specErrors(const QByteArray& text)
{
    const auto parsed = parseExperimentSpec(text);
    QStringList out;
    if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
        for (const SpecError& e : *errors)
            out << e.toString();
    return out.join(QLatin1Char('\n'));
}

RunData runWith(const QString& config, const json& prompts)
{
    RunData data;
    data.config = config;
    data.arm = QStringLiteral("load");
    data.run = config + QStringLiteral("/load");
    data.info = { { "type", "run" }, { "prompts", prompts } };
    for (int i = 0; i < 20; ++i) {
        RequestRecord r;
        r.id = i;
        r.ttftUs = 1000 + i;
        r.e2eUs = 5000;
        r.outTokens = 4;
        r.itlUs.assign(3, 1000);
        r.ok = true;
        data.requests.push_back(r);
    }
    return data;
}

} // namespace

class TestWorkload : public QObject {
    Q_OBJECT
private slots:
    void lengthDistributionsDrawTheirShape_data()
    {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<double>("mean");
        QTest::addColumn<int>("low");
        QTest::addColumn<int>("high");
        QTest::newRow("fixed") << QByteArray("{\"dist\":\"fixed\",\"value\":77}") << 77.0 << 77 << 77;
        QTest::newRow("uniform") << QByteArray("{\"dist\":\"uniform\",\"min\":64,\"max\":512}") << 288.0 << 64 << 512;
        QTest::newRow("normal") << QByteArray("{\"dist\":\"normal\",\"mean\":300,\"std\":40}") << 300.0 << 1
                                << (1 << 20);
        QTest::newRow("lognormal") << QByteArray("{\"dist\":\"lognormal\",\"mean\":200,\"std\":150,\"max\":4000}")
                                   << 200.0 << 1 << 4000;
    }
    void lengthDistributionsDrawTheirShape()
    {
        QFETCH(QByteArray, spec);
        QFETCH(double, mean);
        QFETCH(int, low);
        QFETCH(int, high);
        Errors errors;
        const auto dist = parseLengthDist(json::parse(spec.toStdString()), QStringLiteral("x"), errors);
        QVERIFY2(dist, qPrintable(joined(errors)));
        std::mt19937_64 a(7), b(7);
        std::vector<int> draws;
        for (int i = 0; i < 20000; ++i) {
            draws.push_back(dist->draw(a));
            QCOMPARE(dist->draw(b), draws.back()); // seeded: the same sequence again
            QVERIFY(draws.back() >= low && draws.back() <= high);
        }
        const double m = std::accumulate(draws.begin(), draws.end(), 0.0) / double(draws.size());
        QVERIFY2(std::abs(m - mean) < mean * 0.03, qPrintable(QString::number(m)));
        QVERIFY(parseLengthDist(dist->toJson(), QStringLiteral("x"), errors)->toJson() == dist->toJson());
    }

    void badLengthsNameTheirField_data()
    {
        QTest::addColumn<QByteArray>("spec");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << QByteArray("0") << QStringLiteral("in: expected a whole number of at least 1");
        QTest::newRow("unknown dist") << QByteArray("{\"dist\":\"gauss\"}")
                                      << QStringLiteral("in.dist: expected fixed, uniform, normal or lognormal");
        QTest::newRow("missing max") << QByteArray("{\"dist\":\"uniform\",\"min\":3}")
                                     << QStringLiteral("in.max: required");
        QTest::newRow("max below min") << QByteArray("{\"dist\":\"uniform\",\"min\":9,\"max\":3}")
                                       << QStringLiteral("in.max: must be at least min (9)");
        QTest::newRow("negative std") << QByteArray("{\"dist\":\"normal\",\"mean\":9,\"std\":-1}")
                                      << QStringLiteral("in.std: expected a number >= 0");
        QTest::newRow("stray field") << QByteArray("{\"dist\":\"uniform\",\"min\":1,\"max\":3,\"mean\":2}")
                                     << QStringLiteral("in.mean: unknown field for a uniform length");
    }
    void badLengthsNameTheirField()
    {
        QFETCH(QByteArray, spec);
        QFETCH(QString, expected);
        Errors errors;
        QVERIFY(!parseLengthDist(json::parse(spec.toStdString()), QStringLiteral("in"), errors));
        QVERIFY2(joined(errors).contains(expected), qPrintable(joined(errors)));
    }

    void promptFilesAreValidatedLineByLine_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("sharegpt");
        QTest::addColumn<QString>("expected");
        const QByteArray good = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n";
        QTest::newRow("not json") << good + "\n{\"messages\": [\n" << false << QStringLiteral("line 3: not valid JSON");
        QTest::newRow("no list") << good + "{\"msgs\":[]}\n"
                                 << false << QStringLiteral("line 2: \"messages\" must be a non-empty list");
        QTest::newRow("content type") << good + "{\"messages\":[{\"role\":\"user\",\"content\":5}]}\n"
                                      << false << QStringLiteral("line 2: messages[0].content: expected a string");
        QTest::newRow("role") << good + "{\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}\n"
                              << false
                              << QStringLiteral("line 2: messages[0].role: expected \"system\", \"user\" or "
                                                "\"assistant\", got \"tool\"");
        // ShareGPT as published: a conversation without a human turn is skipped (and counted).
        QTest::newRow("no user turn") << QByteArray("{\"conversations\":[{\"from\":\"gpt\",\"value\":\"x\"}]}") << true
                                      << QStringLiteral("no conversations");
        QTest::newRow("openai no user turn")
            << QByteArray("{\"messages\":[{\"role\":\"assistant\",\"content\":\"x\"}]}") << false
            << QStringLiteral("line 1: the conversation has no \"user\" turn");
        QTest::newRow("sharegpt key") << QByteArray("{\"conversations\":[{\"from\":\"human\",\"text\":\"x\"}]}") << true
                                      << QStringLiteral("line 1: conversations[0].value: expected a string");
        QTest::newRow("empty") << QByteArray("\n\n") << false << QStringLiteral("no conversations");
    }
    void promptFilesAreValidatedLineByLine()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, sharegpt);
        QFETCH(QString, expected);
        const auto parsed = parsePromptDataset(
            bytes, sharegpt ? PromptDataset::Format::ShareGpt : PromptDataset::Format::OpenAi, QStringLiteral("f"));
        QVERIFY(std::holds_alternative<QString>(parsed));
        QVERIFY2(std::get<QString>(parsed).contains(expected), qPrintable(std::get<QString>(parsed)));
    }

    void aPromptFileKeepsItsTurnsAndHash()
    {
        const QByteArray bytes = "{\"conversations\":[{\"from\":\"system\",\"value\":\"be kind\"},{\"from\":\"human\","
                                 "\"value\":\"one\"},{\"from\":\"gpt\",\"value\":\"r\"},{\"from\":\"human\",\"value\":"
                                 "\"two\"}]}\r\n{\"conversations\":[{\"from\":\"human\",\"value\":\"solo\"}]}";
        const auto parsed = parsePromptDataset(bytes, PromptDataset::Format::ShareGpt, QStringLiteral("f"));
        QVERIFY(std::holds_alternative<PromptDataset>(parsed));
        const PromptDataset& d = std::get<PromptDataset>(parsed);
        QCOMPARE(d.conversationCount(), std::size_t(2));
        QCOMPARE(d.conversation(0).system, std::vector<QByteArray> { "be kind" });
        QCOMPARE(d.conversation(0).userTurns, (std::vector<QByteArray> { "one", "two" }));
        QCOMPARE(d.conversation(1).system, std::vector<QByteArray> {});
        QCOMPARE(d.conversation(1).userTurns, std::vector<QByteArray> { "solo" });
        QCOMPARE(d.sha256, QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
    }

    // The same spec gives the same requests in the same order: what makes two
    // configurations comparable.
    void syntheticTurnsAreAPureFunctionOfTheSpec()
    {
        LoadSpec spec;
        spec.prompts.inputTokens = LengthDist { LengthDist::Kind::Uniform, 0, 0, 0, 10, 40 };
        spec.prompts.prefixes = 4;
        spec.prompts.prefixTokens = 32;
        spec.maxTokensDist = LengthDist { LengthDist::Kind::Uniform, 0, 0, 0, 5, 9 };
        const Workload a(spec), b(spec);
        std::set<int> prefixes, lengths;
        for (qint64 i = 0; i < 200; ++i) {
            const PromptTurn x = a.turn(i, 0, {}), y = b.turn(i, 0, {});
            QCOMPARE(Workload::completionPrompt(x), Workload::completionPrompt(y));
            QCOMPARE(x.maxTokens, y.maxTokens);
            QVERIFY(x.maxTokens >= 5 && x.maxTokens <= 9);
            QCOMPARE(x.messages.size(), std::size_t(2));
            QCOMPARE(x.messages[0].content, Workload::prefixText(1, x.prefix, 32));
            QCOMPARE(x.messages[0].content.count(' ') + 1, 32);
            const int words = int(x.messages[1].content.count(' ')) + 1;
            QCOMPARE(x.inTokens, 32 + words);
            prefixes.insert(x.prefix);
            lengths.insert(words);
        }
        QCOMPARE(prefixes, (std::set<int> { 0, 1, 2, 3 }));
        QVERIFY(lengths.size() > 20); // lengths vary over [10, 40]
        spec.seed = 2;
        QVERIFY(
            Workload::completionPrompt(Workload(spec).turn(0, 0, {})) != Workload::completionPrompt(a.turn(0, 0, {})));
    }

    void aTurnCarriesTheRepliesSoFar()
    {
        LoadSpec spec;
        spec.prompts.turns = 3;
        const Workload w(spec);
        const PromptTurn third = w.turn(5, 2, { "first reply", "second reply" });
        QCOMPARE(third.messages.size(), std::size_t(5));
        QCOMPARE(QByteArray(third.messages[1].role), QByteArray("assistant"));
        QCOMPARE(third.messages[1].content, QByteArray("first reply"));
        QCOMPARE(third.messages[3].content, QByteArray("second reply"));
        QCOMPARE(third.messages[0].content, w.turn(5, 0, {}).messages[0].content); // the same first question
        QCOMPARE(third.inTokens, 0); // the replies' tokens are the server's to count
        QCOMPARE(w.turnsOf(5), 3);
    }

    void identitiesCompareBytesNotPaths()
    {
        LoadSpec spec;
        const json plain = Workload::identity(spec);
        QCOMPARE(plain["source"].get<std::string>(), std::string("synthetic"));
        QCOMPARE(plain["input_tokens"].get<int>(), 128);
        spec.prompts.prefixes = 2;
        spec.prompts.prefixTokens = 1024;
        const json prefixed = Workload::identity(spec);
        QString problem;
        QVERIFY(!Workload::sameWorkload(plain, prefixed, &problem));
        QVERIFY2(problem.contains(QStringLiteral("shared_prefix")), qPrintable(problem));
        json a = { { "source", "file" }, { "path", "/a/x.jsonl" }, { "file_sha256", "ab" } };
        json b = a;
        b["path"] = "/b/y.jsonl";
        QVERIFY(Workload::sameWorkload(a, b, nullptr));
        b["file_sha256"] = "cd";
        QVERIFY(!Workload::sameWorkload(a, b, nullptr));
        QVERIFY(!Workload::sameWorkload(a, json(), &problem));
        QVERIFY(problem.contains(QStringLiteral("not recorded")));
    }

    void specsTakePromptsOnTheSpecAndOnAnArm()
    {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "c.jsonl", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n");
        const json doc = { { "name", "x" }, { "target", { { "base_url", "http://127.0.0.1:1" } } },
            { "configs", { { { "label", "a" }, { "model", "m" } } } },
            { "prompts", { { "source", "synthetic" }, { "input_tokens", 64 }, { "seed", 3 } } },
            { "arms",
                { { { "name", "plain" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 4 } },
                    { { "name", "shared" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 4 },
                        { "max_tokens", { { "dist", "uniform" }, { "min", 4 }, { "max", 8 } } },
                        { "prompts",
                            { { "source", "synthetic" }, { "input_tokens", 64 },
                                { "shared_prefix", { { "prefixes", 1 }, { "prefix_tokens", 1024 } } } } } },
                    { { "name", "file" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 4 },
                        { "prompts",
                            { { "source", "file" }, { "path", file.toStdString() }, { "format", "openai" },
                                { "multi_turn", { { "turns", 2 } } } } } } } } };
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        QVERIFY2(std::holds_alternative<ExperimentSpec>(parsed),
            qPrintable(specErrors(QByteArray::fromStdString(doc.dump()))));
        const ExperimentSpec& spec = std::get<ExperimentSpec>(parsed);
        const LoadSpec plain = spec.loadSpec(spec.configs[0], spec.arms[0]);
        QVERIFY(plain.plainPrompts()); // the fast path: fixed length, no prefix
        QCOMPARE(plain.inputTokens, 64);
        QCOMPARE(plain.seed, quint64(3));
        const LoadSpec shared = spec.loadSpec(spec.configs[0], spec.arms[1]);
        QVERIFY(!shared.plainPrompts());
        QCOMPARE(shared.prompts.prefixTokens, 1024);
        QVERIFY(shared.maxTokensDist && shared.maxTokensDist->max == 8);
        QCOMPARE(shared.seed, quint64(3)); // the spec's seed where the arm gives none
        const LoadSpec fromFile = spec.loadSpec(spec.configs[0], spec.arms[2]);
        QVERIFY(fromFile.prompts.dataset);
        QCOMPARE(fromFile.prompts.turns, 2);
        QCOMPARE(Workload::identity(fromFile)["file_sha256"].get<std::string>(),
            fromFile.prompts.dataset->sha256.toStdString());
        QVERIFY(fromFile.validate().isEmpty());
    }

    void aBadPromptFileStopsTheSpecWithItsLine()
    {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "c.jsonl",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n{\"messages\":[{\"role\":\"user\"}]}\n");
        const json doc = { { "name", "x" }, { "target", { { "base_url", "http://127.0.0.1:1" } } },
            { "configs", { { { "label", "a" }, { "model", "m" } } } },
            { "prompts", { { "source", "file" }, { "path", file.toStdString() }, { "format", "openai" } } },
            { "arms", { { { "name", "a" }, { "mode", "concurrency" }, { "concurrency", 1 }, { "requests", 1 } } } } };
        const QString errors = specErrors(QByteArray::fromStdString(doc.dump()));
        QVERIFY2(errors.contains(QStringLiteral("prompts.path: "))
                && errors.contains(QStringLiteral("line 2: messages[0].content")),
            qPrintable(errors));
        json missing = doc;
        missing["prompts"] = { { "source", "file" }, { "format", "xml" }, { "input_tokens", 3 } };
        const QString more = specErrors(QByteArray::fromStdString(missing.dump()));
        QVERIFY2(more.contains(QStringLiteral("prompts.path: required")), qPrintable(more));
        QVERIFY2(
            more.contains(QStringLiteral("prompts.format: required: \"openai\" or \"sharegpt\"")), qPrintable(more));
        QVERIFY2(
            more.contains(QStringLiteral("prompts.input_tokens: unknown field for file prompts")), qPrintable(more));
    }

    void multiTurnNeedsConcurrencyMode()
    {
        LoadSpec spec;
        spec.model = QStringLiteral("m");
        spec.requests = 4;
        spec.prompts.turns = 2;
        QVERIFY(spec.validate().isEmpty());
        spec.mode = LoadSpec::Mode::Rate;
        QVERIFY(spec.validate().contains(QStringLiteral("concurrency mode")));
    }

    // Like drift with a changed probe set: an arm whose configurations ran
    // different workloads is refused, or compared only when asked, and marked.
    void compareRefusesDifferentWorkloads()
    {
        const json a = { { "source", "synthetic" }, { "input_tokens", 128 }, { "seed", 1 }, { "max_tokens", 64 } };
        json b = a;
        b["shared_prefix"] = { { "prefixes", 1 }, { "prefix_tokens", 1024 } };
        RunFile file;
        file.runs = { runWith(QStringLiteral("x"), a), runWith(QStringLiteral("y"), b) };
        QString error;
        QVERIFY(test::comparedChecked(file, {}, &error).is_null());
        QVERIFY2(error.contains(QStringLiteral("arm \"load\": x and y ran different workloads")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("--allow-different-workloads")));
        CompareOptions allow;
        allow.allowDifferentWorkloads = true;
        allow.resamples = 0;
        error.clear();
        const json arms = test::comparedChecked(file, allow, &error);
        QVERIFY(error.isEmpty());
        QVERIFY(arms[0]["different_workloads"].get<bool>());
        QVERIFY(arms[0]["warning"].get<std::string>().find("different workloads") != std::string::npos);
        QVERIFY(!arms[0]["configs"][0]["workload_differs"].get<bool>()); // the baseline itself
        QVERIFY(arms[0]["configs"][1]["workload_differs"].get<bool>());
        file.runs[1] = runWith(QStringLiteral("y"), a);
        error.clear();
        const json same = test::comparedChecked(file, {}, &error);
        QVERIFY(error.isEmpty());
        QVERIFY(!same[0].contains("different_workloads"));
    }

    // tools and tool_choice go verbatim into every chat body, on the plain path and a workload's.
    void toolsAreSentWithChatRequests()
    {
        const json tools = json::array({ { { "type", "function" }, { "function", { { "name", "get_weather" } } } } });
        std::vector<std::pair<QString, QString>> errors;
        const auto prompts
            = parsePromptSpec({ { "input_tokens", 8 }, { "tools", tools }, { "tool_choice", "required" } },
                QStringLiteral("prompts"), errors);
        QVERIFY(prompts && errors.empty());
        LoadSpec spec;
        spec.model = QStringLiteral("m");
        spec.api = ApiKind::Chat;
        spec.inputTokens = 8;
        spec.requests = 4;
        spec.prompts = *prompts;
        QVERIFY(spec.validate().isEmpty());
        for (const bool plain : { true, false }) {
            if (!plain)
                spec.prompts.turns = 2;
            const RequestFactory factory(spec, {});
            const json body = plain ? json::parse(factory.body(0).toStdString())
                                    : json::parse(factory.body(factory.workload()->turn(0, 0, {})).toStdString());
            QVERIFY(body["tools"] == tools);
            QVERIFY(body["tool_choice"] == "required");
        }
        spec.api = ApiKind::Completions;
        QVERIFY(spec.validate().contains(QLatin1String("chat")));
        errors.clear();
        parsePromptSpec({ { "tools", json::array() } }, QStringLiteral("prompts"), errors);
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].first, QStringLiteral("prompts.tools"));
    }
};

QTEST_GUILESS_MAIN(TestWorkload)
#include "tst_workload.moc"
