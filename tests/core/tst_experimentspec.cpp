#include "server/servercommandcheck.h"
#include "spec/experimentspec.h"
#include "workload/probeset.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <limits>
#include <memory>

using namespace ks;
using nlohmann::json;

namespace {

// docs/experiments.md's example: the bundled one-knob experiment plus probes.
json validSpec()
{
    QFile file(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments/one-knob.json"));
    if (!file.open(QIODevice::ReadOnly))
        return json::object();
    const QByteArray text = file.readAll();
    json doc = json::parse(text.begin(), text.end());
    doc["probes"]
        = { { "set", "builtin:quality-50" }, { "max_tokens", 64 }, { "repeats", 3 }, { "across_restart", true } };
    return doc;
}

std::vector<SpecError> errorsOf(const json& doc)
{
    const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
    const auto* errors = std::get_if<std::vector<SpecError>>(&parsed);
    return errors ? *errors : std::vector<SpecError> {};
}

} // namespace

class TestExperimentSpec : public QObject {
    Q_OBJECT
private slots:
    void parsesTheDesignExample()
    {
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(validSpec().dump()));
        const auto* spec = std::get_if<ExperimentSpec>(&parsed);
        QVERIFY(spec);
        QCOMPARE(spec->configs.size(), std::size_t(2));
        QCOMPARE(spec->arms.size(), std::size_t(3));
        QCOMPARE(spec->serverCommand(spec->configs[0]),
            QString::fromLatin1("knobscope-sim --port 8000 --profile sim-8b --max-num-seqs 128")
                .split(QLatin1Char(' ')));
        QCOMPARE(spec->serverCommand(spec->configs[1]).last(), QStringLiteral("32"));
        const LoadSpec poisson = spec->loadSpec(spec->configs[1], spec->arms[1]);
        QCOMPARE(poisson.mode, LoadSpec::Mode::Rate);
        QCOMPARE(poisson.rate, 2.0);
        QCOMPARE(poisson.durationS, 30.0);
        QCOMPARE(poisson.runLabel, QStringLiteral("mns32/poisson"));
        QCOMPARE(poisson.inputTokens, 128);
        QCOMPARE(poisson.validate(), QString());
        QCOMPARE(spec->slo.ttftMs, 500.0);
        QVERIFY(spec->probes && spec->probes->acrossRestart);
    }

    void bundledExperimentsAreValid()
    {
        const QDir dir(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments"));
        const QStringList files = dir.entryList({ QStringLiteral("*.json") });
        QVERIFY(files.size() >= 2);
        for (const QString& name : files) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto parsed = parseExperimentSpec(f.readAll());
            if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
                QFAIL(qPrintable(name + QStringLiteral(": ") + errors->front().toString()));
        }
    }

    void reportsEachMistakeWithItsPath_data()
    {
        QTest::addColumn<QString>("pointer"); // JSON pointer to change
        QTest::addColumn<QString>("value"); // JSON text to put there; empty = remove
        QTest::addColumn<QString>("expected");
        QTest::newRow("knob of wrong type") << "/configs/1/knobs/max_num_seqs"
                                            << "\"many\""
                                            << "configs[1].knobs.max_num_seqs: expected a whole number";
        QTest::newRow("knob out of range") << "/configs/0/knobs/max_num_seqs"
                                           << "0"
                                           << "configs[0].knobs.max_num_seqs: expected a value in [1";
        QTest::newRow("object knob") << "/configs/0/knobs/x"
                                     << "{}"
                                     << "configs[0].knobs.x: expected a number, string or boolean";
        QTest::newRow("missing name") << "/name"
                                      << ""
                                      << "name: required";
        QTest::newRow("missing base url") << "/target/base_url"
                                          << ""
                                          << "target.base_url: required";
        QTest::newRow("ftp base url") << "/target/base_url"
                                      << "\"ftp://x\""
                                      << "target.base_url: expected an http:// or https:// URL";
        QTest::newRow("bad api") << "/target/api"
                                 << "\"grpc\""
                                 << "target.api: expected \"completions\" or \"chat\"";
        QTest::newRow("shell string command") << "/server/command"
                                              << "\"vllm serve x\""
                                              << "server.command: expected a non-empty list of strings";
        QTest::newRow("unknown placeholder") << "/server/command/3"
                                             << "\"{gpu}\""
                                             << "server.command[3]: placeholder {gpu} has no value in configs[0]";
        QTest::newRow("relative ready path") << "/server/ready_path"
                                             << "\"health\""
                                             << "server.ready_path: expected a path starting with '/'";
        QTest::newRow("no configs") << "/configs"
                                    << "[]"
                                    << "configs: expected a non-empty list";
        QTest::newRow("duplicate label") << "/configs/1/label"
                                         << "\"mns128\""
                                         << "configs[1].label: duplicate label";
        QTest::newRow("config without model") << "/configs/0/model"
                                              << ""
                                              << "configs[0].model: required";
        QTest::newRow("typo in arm field") << "/arms/0/concurency"
                                           << "4"
                                           << "arms[0].concurency: unknown field";
        QTest::newRow("bad mode") << "/arms/0/mode"
                                  << "\"burst\""
                                  << "arms[0].mode: expected \"concurrency\", \"rate\", \"sweep\" or \"trace\"";
        QTest::newRow("sweep without over") << "/arms/0/mode"
                                            << "\"sweep\""
                                            << "arms[0].over: required";
        QTest::newRow("sweep values descending")
            << "/arms/3"
            << "{\"name\":\"k\",\"mode\":\"sweep\",\"over\":\"rate\",\"values\":[2,1],\"duration_s\":5}"
            << "arms[3].values[1]: expected values in ascending order";
        QTest::newRow("fractional concurrency step")
            << "/arms/3"
            << "{\"name\":\"k\",\"mode\":\"sweep\",\"over\":\"concurrency\",\"values\":[1.5],\"requests\":5}"
            << "arms[3].values[0]: expected a whole number of at least 1";
        QTest::newRow("automatic concurrency sweep")
            << "/arms/3"
            << "{\"name\":\"k\",\"mode\":\"sweep\",\"over\":\"concurrency\",\"auto\":true,\"requests\":5}"
            << "arms[3].auto: an automatic sweep is over \"rate\"";
        QTest::newRow("sweep without steps") << "/arms/3"
                                             << "{\"name\":\"k\",\"mode\":\"sweep\",\"over\":\"rate\",\"requests\":5}"
                                             << "arms[3]: a sweep needs either \"values\" or \"auto\"";
        QTest::newRow("rate in a sweep")
            << "/arms/3"
            << "{\"name\":\"k\",\"mode\":\"sweep\",\"over\":\"rate\",\"values\":[1],\"rate\":2,\"requests\":5}"
            << "arms[3].rate: not used in sweep mode";
        QTest::newRow("arm name with @") << "/arms/0/name"
                                         << "\"knee@2\""
                                         << "arms[0].name: '@' and '#' are kept";
        QTest::newRow("zero arm repeats") << "/arms/0/repeats"
                                          << "0"
                                          << "arms[0].repeats: expected a whole number of at least 1";
        QTest::newRow("steps outside a sweep") << "/arms/0/steps"
                                               << "3"
                                               << "arms[0].steps: only for \"mode\": \"sweep\"";
        QTest::newRow("rate without rate") << "/arms/1/rate"
                                           << ""
                                           << "arms[1].rate: required";
        QTest::newRow("concurrency zero") << "/arms/2/concurrency"
                                          << "0"
                                          << "arms[2].concurrency: expected a whole number of at least 1";
        QTest::newRow("unbounded arm") << "/arms/0/requests"
                                       << ""
                                       << "arms[0]: bound the arm";
        QTest::newRow("rate in concurrency arm") << "/arms/0/rate"
                                                 << "3"
                                                 << "arms[0].rate: not used in concurrency mode";
        QTest::newRow("duplicate arm") << "/arms/2/name"
                                       << "\"fixed\""
                                       << "arms[2].name: duplicate arm name";
        QTest::newRow("negative slo") << "/slo/ttft_ms"
                                      << "-1"
                                      << "slo.ttft_ms: expected a number greater than 0";
        QTest::newRow("zero repeats") << "/probes/repeats"
                                      << "0"
                                      << "probes.repeats: expected a whole number of at least 1";
        QTest::newRow("restart without server") << "/server"
                                                << ""
                                                << "probes.across_restart: needs a \"server\" command";
        QTest::newRow("arm named like a probe pass") << "/arms/0/name"
                                                     << "\"probes\""
                                                     << "arms[0].name: arm names starting with \"probes\"";
        QTest::newRow("env not an object") << "/server/env"
                                           << "[\"A=1\"]"
                                           << "server.env: expected an object";
        QTest::newRow("env bad name") << "/server/env/1BAD"
                                      << "\"x\""
                                      << "server.env.1BAD: not a variable name";
        QTest::newRow("env number value") << "/server/env/OLLAMA_NUM_PARALLEL"
                                          << "4"
                                          << "server.env.OLLAMA_NUM_PARALLEL: expected a string";
        QTest::newRow("env unknown placeholder") << "/server/env/SLOTS"
                                                 << "\"{slots}\""
                                                 << "server.env.SLOTS: placeholder {slots} has no value";
        QTest::newRow("unknown top-level field") << "/confgs"
                                                 << "[]"
                                                 << "confgs: unknown field";
        QTest::newRow("top-level repeats zero") << "/repeats"
                                                << "0"
                                                << "repeats: expected a whole number of at least 1, got 0";
        QTest::newRow("top-level repeats text") << "/repeats"
                                                << "\"3\""
                                                << "repeats: expected a whole number of at least 1, or an object";
        QTest::newRow("rounds max below min") << "/repeats"
                                              << "{\"min\":2,\"max\":1,\"until\":{\"ratios\":[\"ttft_ms.p99\"]}}"
                                              << "repeats.max: expected a whole number >= repeats.min (2), got 1";
        QTest::newRow("rounds max over the limit") << "/repeats"
                                                   << "{\"max\":60,\"until\":{\"ratios\":[\"ttft_ms.p99\"]}}"
                                                   << "repeats.max: expected at most 50 rounds, got 60";
        QTest::newRow("rounds without max") << "/repeats"
                                            << "{\"until\":{\"ratios\":[\"ttft_ms.p99\"]}}"
                                            << "repeats.max: required";
        QTest::newRow("one round is no spread") << "/repeats"
                                                << "{\"min\":1,\"max\":3,\"until\":{\"ratios\":[\"ttft_ms.p99\"]}}"
                                                << "repeats.min: expected a whole number of at least 2, got 1";
        QTest::newRow("rounds without until") << "/repeats"
                                              << "{\"min\":2,\"max\":3}"
                                              << "repeats.until: required";
        QTest::newRow("typo in rounds") << "/repeats"
                                        << "{\"max\":3,\"mni\":2,\"until\":{\"ratios\":[\"ttft_ms.p99\"]}}"
                                        << "repeats.mni: unknown field";
        QTest::newRow("until decides nothing") << "/repeats"
                                               << "{\"max\":3,\"until\":{\"half_width\":0.1}}"
                                               << "repeats.until: needs \"ratios\" or \"fail_if\"";
        QTest::newRow("ratio of a p90") << "/repeats"
                                        << "{\"max\":3,\"until\":{\"ratios\":[\"ttft_ms.p90\"]}}"
                                        << "repeats.until.ratios[0]: expected [ARM:]METRIC.STAT";
        QTest::newRow("ratio of no arm") << "/repeats"
                                         << "{\"max\":3,\"until\":{\"ratios\":[\"stres:ttft_ms.p99\"]}}"
                                         << "repeats.until.ratios[0]: no arm \"stres\" (arms: fixed, poisson, stress)";
        QTest::newRow("half width as percent")
            << "/repeats"
            << "{\"max\":3,\"until\":{\"ratios\":[\"ttft_ms.p99\"],\"half_width\":5}}"
            << "repeats.until.half_width: expected a fraction between 0 and 1";
        QTest::newRow("fail_if not a condition")
            << "/repeats"
            << "{\"max\":3,\"until\":{\"fail_if\":[\"ttft_ms.p99 >> 1.1x\"]}}"
            << "repeats.until.fail_if[0]: \"ttft_ms.p99 >> 1.1x\": expected [ARM:]METRIC OP NUMBER[x]";
        QTest::newRow("fail_if in milliseconds")
            << "/repeats"
            << "{\"max\":3,\"until\":{\"fail_if\":[\"ttft_ms.p99 > 800\"]}}"
            << "repeats.until.fail_if[0]: \"ttft_ms.p99 > 800\": the rounds are decided on the ratios' intervals";
        QTest::newRow("unknown order") << "/order"
                                       << "\"random\""
                                       << "order: expected \"interleaved\" or \"blocked\", got \"random\"";
        QTest::newRow("negative order seed") << "/order_seed"
                                             << "-1"
                                             << "order_seed: expected a whole number of at least 0, got -1";
        QTest::newRow("calibration not a path") << "/calibration"
                                                << "3"
                                                << "calibration: expected a non-empty string";
    }
    void reportsEachMistakeWithItsPath()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        json doc = validSpec();
        const json::json_pointer ptr(pointer.toStdString());
        if (value.isEmpty())
            doc[ptr.parent_pointer()].erase(ptr.back());
        else
            doc[ptr] = json::parse(value.toStdString());
        const std::vector<SpecError> errors = errorsOf(doc);
        QStringList texts;
        for (const SpecError& e : errors)
            texts << e.toString();
        QVERIFY2(std::any_of(texts.begin(), texts.end(), [&](const QString& t) { return t.startsWith(expected); }),
            qPrintable(QStringLiteral("expected '%1...', got: %2").arg(expected, texts.join(QStringLiteral(" | ")))));
    }

    void topLevelRepeatsAreEveryArmsDefault()
    {
        json doc = validSpec();
        doc["repeats"] = 3;
        doc["arms"][1]["repeats"] = 2;
        doc["order_seed"] = 7;
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        const auto* spec = std::get_if<ExperimentSpec>(&parsed);
        QVERIFY(spec);
        QCOMPARE(spec->arms[0].repeats, 3);
        QCOMPARE(spec->arms[1].repeats, 2); // its own
        QCOMPARE(spec->arms[2].repeats, 3);
        QCOMPARE(spec->rounds.order, RoundsSpec::Order::Interleaved); // the default
        QCOMPARE(spec->rounds.seed, quint64(7));
        QVERIFY(!spec->rounds.until);
        doc.erase("order_seed");
        doc["order"] = "blocked";
        const auto blocked = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        QCOMPARE(std::get<ExperimentSpec>(blocked).rounds.order, RoundsSpec::Order::Blocked);
        QCOMPARE(std::get<ExperimentSpec>(blocked).rounds.seed, quint64(1)); // the prompts' seed
    }

    void repeatsUntilDecided()
    {
        json doc = validSpec();
        doc["arms"].push_back({ { "name", "knee" }, { "mode", "sweep" }, { "over", "concurrency" },
            { "values", { 1, 2 } }, { "requests", 8 } });
        doc["arms"][1]["repeats"] = 2;
        doc["repeats"] = { { "min", 3 }, { "max", 6 },
            { "until",
                { { "ratios", { "ttft_ms.p99", "stress:tpot_ms.p50" } }, { "half_width", 0.1 },
                    { "fail_if", { "fixed:e2e_ms.p50 > 1.2x" } } } } };
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
            QFAIL(qPrintable(errors->front().toString()));
        const ExperimentSpec& spec = std::get<ExperimentSpec>(parsed);
        QVERIFY(spec.rounds.until);
        const RoundRule& rule = *spec.rounds.until;
        QCOMPARE(rule.min, 3);
        QCOMPARE(rule.max, 6);
        QCOMPARE(rule.halfWidth, 0.1);
        QCOMPARE(rule.ratios.size(), std::size_t(2));
        QCOMPARE(rule.ratios[1].arm, QStringLiteral("stress"));
        QCOMPARE(rule.ratios[1].ratio, QStringLiteral("tpot_ms.p50"));
        QCOMPARE(rule.failIf.size(), std::size_t(1));
        QCOMPARE(rule.failIf[0].threshold, 1.2);
        // The arms that run until decided: plain, without their own repeats.
        QCOMPARE(rule.arms, QStringList({ QStringLiteral("fixed"), QStringLiteral("stress") }));
        QCOMPARE(spec.arms[0].repeats, 6); // planned up to the budget
        QCOMPARE(spec.arms[1].repeats, 2);
        QCOMPARE(spec.arms[3].repeats, 3); // a sweep: each step min times, in the first round

        auto firstError = [](const json& d) {
            const std::vector<SpecError> errors = errorsOf(d);
            return errors.empty() ? QString() : errors.front().toString();
        };
        json named = doc;
        named["repeats"]["until"]["ratios"] = { "poisson:ttft_ms.p99" };
        QCOMPARE(firstError(named),
            QStringLiteral("repeats.until.ratios[0]: arm \"poisson\" has its own \"repeats\" (2): it does not run "
                           "until decided"));
        named["repeats"]["until"]["ratios"] = { "knee:ttft_ms.p99" };
        QVERIFY(firstError(named).startsWith(QStringLiteral("repeats.until.ratios[0]: arm \"knee\" is a sweep")));
        json blocked = doc;
        blocked["order"] = "blocked";
        QVERIFY2(firstError(blocked).startsWith(QStringLiteral("order: repeats until decided need \"interleaved\"")),
            qPrintable(firstError(blocked)));
        json single = doc;
        single["configs"].erase(1);
        QVERIFY2(firstError(single).startsWith(QStringLiteral("repeats.until: needs two configurations or more")),
            qPrintable(firstError(single)));
    }

    void aSearchRunsBlocked()
    {
        json doc = validSpec();
        doc["configs"].erase(1);
        doc.erase("probes");
        doc["search"] = { { "knob", "max_num_seqs" }, { "min", 8 }, { "max", 64 }, { "arm", "fixed" },
            { "objective", "req_per_s" }, { "budget", 3 } };
        doc["repeats"] = 2;
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        if (const auto* errors = std::get_if<std::vector<SpecError>>(&parsed))
            QFAIL(qPrintable(errors->front().toString()));
        QCOMPARE(std::get<ExperimentSpec>(parsed).rounds.order, RoundsSpec::Order::Blocked);
        doc["order"] = "interleaved";
        const std::vector<SpecError> errors = errorsOf(doc);
        QVERIFY(!errors.empty());
        QCOMPARE(errors.front().toString(),
            QStringLiteral(
                "order: a search runs its probes one after another: leave \"order\" out or write \"blocked\""));
    }

    void serverEnvironmentFillsPlaceholders()
    {
        json doc = validSpec();
        doc["server"]["env"]
            = { { "OLLAMA_NUM_PARALLEL", "{max_num_seqs}" }, { "MODEL_TAG", "m-{model}" }, { "PLAIN", "x" } };
        const auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        const auto* spec = std::get_if<ExperimentSpec>(&parsed);
        QVERIFY(spec);
        const auto env = spec->serverEnvironment(spec->configs[1]);
        QCOMPARE(env.size(), 3);
        QVERIFY(env.contains(qMakePair(QStringLiteral("OLLAMA_NUM_PARALLEL"), QStringLiteral("32"))));
        QVERIFY(env.contains(qMakePair(QStringLiteral("MODEL_TAG"), QStringLiteral("m-sim-8b"))));
        QVERIFY(env.contains(qMakePair(QStringLiteral("PLAIN"), QStringLiteral("x"))));
    }

    // Every real-server template calls its slot knob max_num_seqs (so it gets
    // the tooltip and the gentle-arm check its slot bound), uses it in the
    // command or the environment, and has no command the launch check warns about.
    void templatesNameTheSlotKnobMaxNumSeqs()
    {
        const QDir dir(QStringLiteral(KNOBSCOPE_RESOURCES "/experiments"));
        const QStringList files = dir.entryList({ QStringLiteral("*-template.json") });
        QVERIFY(files.size() >= 4);
        for (const QString& name : files) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto parsed = parseExperimentSpec(f.readAll());
            const auto* spec = std::get_if<ExperimentSpec>(&parsed);
            QVERIFY2(spec && spec->server, qPrintable(name));
            for (const ConfigSpec& config : spec->configs) {
                QVERIFY2(config.knobText(QStringLiteral("max_num_seqs")), qPrintable(name + u' ' + config.label));
                QStringList used = spec->server->command;
                for (const auto& variable : spec->server->env)
                    used << variable.second;
                QVERIFY2(used.join(u' ').contains(QStringLiteral("{max_num_seqs}")), qPrintable(name));
                QVERIFY2(ks::serverCommandWarnings(spec->serverCommand(config)).isEmpty(), qPrintable(name));
            }
        }
    }

    void serverCommandWarnings_data()
    {
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("warning"); // start of the one expected warning; empty for none
        const auto args = [](const char* line) { return QString::fromLatin1(line).split(u' '); };
        QTest::newRow("vllm serve") << args("vllm serve m --max-num-seqs 32") << QString();
        QTest::newRow("vllm serve without stats")
            << args("vllm serve m --disable-log-stats") << QStringLiteral("the vLLM command has --disable-log-stats");
        QTest::newRow("vllm module without stats")
            << args("python3 -m vllm.entrypoints.openai.api_server --model m --disable-log-stats=true")
            << QStringLiteral("the vLLM command has --disable-log-stats");
        QTest::newRow("vllm path") << args("/opt/venv/bin/vllm serve m --disable-log-stats")
                                   << QStringLiteral("the vLLM command has --disable-log-stats");
        QTest::newRow("sglang") << args("python3 -m sglang.launch_server --model-path m --enable-metrics") << QString();
        QTest::newRow("sglang serve without metrics")
            << args("sglang serve --model-path m") << QStringLiteral("the SGLang command has no --enable-metrics");
        QTest::newRow("llama-server") << args("llama-server -m m.gguf --metrics") << QString();
        QTest::newRow("llama-server without metrics")
            << args("llama-server -m m.gguf") << QStringLiteral("the llama-server command has no --metrics");
        QTest::newRow("simulator") << args("knobscope-sim --port 8000 --disable-log-stats") << QString();
        QTest::newRow("a model named vllm-like")
            << args("llama-server -m vllm.gguf --metrics --disable-log-stats") << QString();
    }
    void serverCommandWarnings()
    {
        QFETCH(QStringList, argv);
        QFETCH(QString, warning);
        const QStringList warnings = ks::serverCommandWarnings(argv);
        if (warning.isEmpty()) {
            QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(u'|')));
        } else {
            QCOMPARE(warnings.size(), 1);
            QVERIFY2(warnings.front().startsWith(warning), qPrintable(warnings.front()));
        }
    }

    void collectsSeveralErrorsAtOnce()
    {
        json doc = validSpec();
        doc.erase("name");
        doc["arms"][0]["mode"] = "x";
        doc["target"]["api"] = "y";
        QVERIFY(errorsOf(doc).size() >= 3);
    }

    void driftOnlyExperiment()
    {
        json doc = validSpec();
        doc["arms"] = json::array();
        QVERIFY(errorsOf(doc).empty()); // probes alone are an experiment
        doc.erase("probes");
        QVERIFY(!errorsOf(doc).empty());
    }

    void notJsonIsOneClearError()
    {
        const auto parsed = parseExperimentSpec("{\"name\": ");
        const auto* errors = std::get_if<std::vector<SpecError>>(&parsed);
        QVERIFY(errors && errors->size() == 1);
        QVERIFY(errors->front().message.startsWith(QStringLiteral("not valid JSON")));
    }

    // Found by tests/fuzz/fuzz_experimentspec (UBSan): 50 probes × a huge
    // repeats overflowed an int; the count now saturates.
    void probeRequestsSaturate()
    {
        const QByteArray text = R"({"name": "x", "target": {"base_url": "http://127.0.0.1:8000"}, )"
                                R"("configs": [{"label": "a", "model": "m"}], "probes": {"repeats": 2147483647}})";
        const auto parsed = parseExperimentSpec(text);
        const auto* spec = std::get_if<ExperimentSpec>(&parsed);
        QVERIFY(spec);
        auto set = std::make_shared<ProbeSet>();
        set->probes.resize(50);
        QCOMPARE(spec->probeLoadSpec(spec->configs.front(), set, 0).requests, std::numeric_limits<int>::max());
        QCOMPARE(spec->probeLoadSpec(spec->configs.front(), set, 1).requests, 50);
    }

    // Found by tests/fuzz/fuzz_experimentspec: nlohmann throws out_of_range, not
    // parse_error, for a number beyond a double, and it escaped the validator.
    void numberTooLargeIsOneClearError()
    {
        const auto parsed = parseExperimentSpec(R"({"name": "x", "arms": [{"rate": 1e400}]})");
        const auto* errors = std::get_if<std::vector<SpecError>>(&parsed);
        QVERIFY(errors && errors->size() == 1);
        QVERIFY(errors->front().message.startsWith(QStringLiteral("not valid JSON")));
        QVERIFY(errors->front().message.contains(QStringLiteral("1e400")));
    }
};

QTEST_GUILESS_MAIN(TestExperimentSpec)
#include "tst_experimentspec.moc"
