// A search over two knobs, run end to end against knobscope-sim: every probe
// starts the server with both knobs set, runs as a configuration labelled with
// its point, and leaves a search_probe line when it ends; the closing search
// line recommends a probed point. How well the search does is checked on the
// engine's clock (tests/sim/tst_search2d_engine.cpp) and measured over sockets
// by bench/search_vs_grid.py; this test checks the way through the runner.
#include "experiment/experimentrunner.h"

#include "common/freeport.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using nlohmann::json;

namespace {

std::vector<json> linesOf(const QString& path, const std::string& type)
{
    std::vector<json> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        json j = json::parse(line.begin(), line.end(), nullptr, false);
        if (j.is_object() && j.value("type", std::string()) == type)
            out.push_back(std::move(j));
    }
    return out;
}

} // namespace

class TestKnobSearch2dE2e : public QObject {
    Q_OBJECT
private slots:
    void probesRunAsPointsAndLeaveTheirLines()
    {
        QTemporaryDir dir;
        const quint16 port = freePort();
        const std::string url = "http://127.0.0.1:" + std::to_string(port);
        const json doc = {
            { "name", "knob-search-2d-small" },
            { "target", { { "base_url", url } } },
            { "server",
                { { "command",
                      { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                          "{max_num_seqs}", "--max-num-batched-tokens", "{max_num_batched_tokens}" } },
                    { "ready_timeout_s", 30 } } },
            { "configs", json::array({ { { "label", "base" }, { "model", "sim-1.8b" } } }) },
            { "arms",
                { { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 16 }, { "duration_s", 2 },
                    { "max_tokens", 32 } } } },
            { "prompts", { { "source", "synthetic" }, { "input_tokens", 256 }, { "seed", 1 } } },
            { "slo", { { "tpot_ms", 20.5 } } },
            { "search",
                { { "knobs",
                      { { "max_num_seqs", { { "min", 4 }, { "max", 32 }, { "scale", "log2" }, { "integer", true } } },
                          { "max_num_batched_tokens",
                              { { "min", 512 }, { "max", 4096 }, { "scale", "log2" }, { "integer", true } } } } },
                    { "arm", "stress" }, { "budget", 3 } } },
        };
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(doc.dump()));
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        const QString path = dir.filePath(QStringLiteral("search.jsonl"));
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), path);
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        QCOMPARE(runner.start(), QString());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toString(), QString());

        const std::vector<json> runs = linesOf(path, "run");
        const std::vector<json> probes = linesOf(path, "search_probe");
        const std::vector<json> starts = [&] {
            std::vector<json> out;
            for (const json& e : linesOf(path, "server_event"))
                if (e.value("event", std::string()) == "starting")
                    out.push_back(e);
            return out;
        }();
        QCOMPARE(runs.size(), std::size_t(3));
        QCOMPARE(probes.size(), std::size_t(3));
        QCOMPARE(starts.size(), std::size_t(3));
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const json& point = runs[i]["search"]["point"];
            const int seqs = point["max_num_seqs"].get<int>(), batched = point["max_num_batched_tokens"].get<int>();
            QCOMPARE(runs[i]["search"]["probe"].get<int>(), int(i));
            QVERIFY(runs[i]["knobs"] == point);
            const std::string label
                = "max_num_batched_tokens=" + std::to_string(batched) + ",max_num_seqs=" + std::to_string(seqs);
            QCOMPARE(QString::fromStdString(runs[i]["config"].get<std::string>()), QString::fromStdString(label));
            // The server the probe measured was started with both of its values.
            const QString command = QString::fromStdString(starts[i]["detail"].get<std::string>());
            QVERIFY2(command.contains(QStringLiteral("--max-num-seqs %1 ").arg(seqs))
                    && command.endsWith(QStringLiteral("--max-num-batched-tokens %1").arg(batched)),
                qPrintable(command));
            QCOMPARE(probes[i]["probe"].get<int>(), int(i));
            QVERIFY(probes[i]["point"] == point);
            QVERIFY(probes[i]["objective"].is_number() && probes[i]["objective"].get<double>() > 0);
        }
        const std::vector<json> result = linesOf(path, "search");
        QCOMPARE(result.size(), std::size_t(1));
        const json& line = result.front();
        QCOMPARE(QString::fromStdString(line["stop"].get<std::string>()), QStringLiteral("budget"));
        QVERIFY(line["best"].is_object());
        bool probedBest = false;
        for (const json& p : probes)
            probedBest = probedBest || p["point"] == line["best"];
        QVERIFY(probedBest);
        QVERIFY(line["plateau"].is_array() && !line["plateau"].empty());
    }
};

QTEST_GUILESS_MAIN(TestKnobSearch2dE2e)
#include "tst_knobsearch2d_e2e.moc"
