// The knob-response and Pareto charts of a real multi-configuration run
// against knobscope-sim: what `export --points` plots equals `compare --json`'s
// figures for the same configurations and arms, and the Compare page offers
// the charts only when a knob varies.
#include "charts/knobplot.h"
#include "common/freeport.h"
#include "editor/experimentdocument.h"
#include "feeds/runfileloader.h"
#include "pages/comparepage.h"
#include "pages/knobrangepanel.h"
#include "pages/livepage.h"
#include "window/mainwindow.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using nlohmann::json;

namespace {

json readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return nullptr;
    return json::parse(f.readAll().toStdString(), nullptr, false);
}

struct Result {
    int code = -1;
    QByteArray out;
    QString err;
};

Result knobscope(const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral(KNOBSCOPE_BIN), args);
    p.waitForFinished(timeoutMs);
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        QString::fromUtf8(p.readAllStandardError()) };
}

const json* configOf(const json& compare, const std::string& arm, const std::string& config)
{
    for (const json& a : compare)
        if (a.value("arm", std::string()) == arm && a.contains("configs"))
            for (const json& c : a["configs"]) // a reference into `compare`, not into a copy
                if (c.value("config", std::string()) == config)
                    return &c;
    return nullptr;
}

} // namespace

class TestKnobCharts : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_run;
    json m_compare;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        const quint16 port = freePort();
        json configs = json::array();
        for (int mns : { 4, 8, 16, 64 })
            configs.push_back({ { "label", "mns" + std::to_string(mns) }, { "model", "sim-8b" },
                { "knobs", { { "max_num_seqs", mns } } } });
        const json spec = { { "name", "knob-charts" },
            { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(port) }, { "api", "completions" } } },
            { "server",
                { { "command",
                      { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                          "{max_num_seqs}" } },
                    { "ready_path", "/health" }, { "ready_timeout_s", 30 }, { "restart_between_configs", true } } },
            { "configs", configs },
            { "arms",
                { { { "name", "stress" }, { "mode", "concurrency" }, { "concurrency", 16 }, { "requests", 32 },
                      { "max_tokens", 16 } },
                    { { "name", "light" }, { "mode", "concurrency" }, { "concurrency", 2 }, { "requests", 8 },
                        { "max_tokens", 16 } } } },
            { "prompts", { { "source", "synthetic" }, { "input_tokens", 32 }, { "seed", 1 } } },
            { "slo", { { "ttft_ms", 500 }, { "tpot_ms", 50 } } } };
        QFile f(m_dir.filePath(QStringLiteral("spec.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(spec.dump()));
        f.close();
        m_run = m_dir.filePath(QStringLiteral("run.jsonl"));
        const Result run = knobscope({ QStringLiteral("run"), f.fileName(), QStringLiteral("--out"), m_run,
                                         QStringLiteral("--progress"), QStringLiteral("none") },
            300000);
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const Result compare = knobscope({ QStringLiteral("compare"), m_run, QStringLiteral("--json") });
        QCOMPARE(compare.code, 0);
        m_compare = json::parse(compare.out.toStdString(), nullptr, false);
        QVERIFY(m_compare.is_array() && m_compare.size() == 2);
    }

    void knobPointsAreCompareFigures()
    {
        const QString points = m_dir.filePath(QStringLiteral("knob.json"));
        const QString png = m_dir.filePath(QStringLiteral("knob.png"));
        const Result r = knobscope(
            { QStringLiteral("export"), m_run, QStringLiteral("--chart"), QStringLiteral("knob:max_num_seqs"),
                QStringLiteral("--metric"), QStringLiteral("ttft_ms.p99"), QStringLiteral("--points"), points,
                QStringLiteral("--out"), png, QStringLiteral("--size"), QStringLiteral("800x500") });
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QImage(png).size(), QSize(800, 500));
        const json chart = readJson(points);
        QCOMPARE(chart["log_x"].get<bool>(), true); // 4 to 64
        QCOMPARE(chart["series"].size(), 2u);
        int compared = 0;
        for (const json& series : chart["series"]) {
            double previous = 0;
            for (const json& p : series["points"]) {
                const json* c = configOf(m_compare, series["arm"], p["config"]);
                QVERIFY(c);
                QVERIFY(p["value"] == (*c)["knobs"]["max_num_seqs"]);
                QVERIFY(p["value"].get<double>() > previous); // sorted by value
                previous = p["value"].get<double>();
                QCOMPARE(p["y"].get<double>(), (*c)["ttft_ms"]["p99"].get<double>());
                QVERIFY(p["ci95"] == (*c)["ci95"]["ttft_ms"]["p99"]);
                ++compared;
            }
        }
        QCOMPARE(compared, 8); // 4 configurations x 2 arms
        QCOMPARE(chart["left_out"].size(), 0u);
    }

    void paretoPointsAreCompareFigures()
    {
        const QString points = m_dir.filePath(QStringLiteral("pareto.json"));
        const Result r = knobscope({ QStringLiteral("export"), m_run, QStringLiteral("--chart"),
            QStringLiteral("pareto"), QStringLiteral("--points"), points });
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json chart = readJson(points);
        const int gpus = chart["gpus"].get<int>();
        QCOMPARE(chart["points"].size(), 8u);
        for (const json& p : chart["points"]) {
            const json* c = configOf(m_compare, p["arm"], p["config"]);
            QVERIFY(c);
            QVERIFY(p["knobs"]["max_num_seqs"] == (*c)["knobs"]["max_num_seqs"]);
            const double tokens = (*c)["out_tok_per_s"].get<double>();
            QCOMPARE(p["x"].get<double>(), gpus > 0 ? tokens / gpus : tokens);
            QCOMPARE(p["y"].get<double>(), 1000.0 / (*c)["tpot_ms"]["p50"].get<double>());
            // On the front exactly when no other point is at least as good on both axes and better on one.
            bool dominated = false;
            for (const json& q : chart["points"])
                dominated = dominated || (q["x"] >= p["x"] && q["y"] >= p["y"] && (q["x"] > p["x"] || q["y"] > p["y"]));
            QCOMPARE(p["front"].get<bool>(), !dominated);
        }
    }

    void unknownKnobListsTheKnobs()
    {
        const Result r = knobscope({ QStringLiteral("export"), m_run, QStringLiteral("--chart"),
            QStringLiteral("knob:block_size"), QStringLiteral("--out"), m_dir.filePath(QStringLiteral("x.png")) });
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no knob \"block_size\" in this file (knobs: max_num_seqs, model)")),
            qPrintable(r.err));
    }

    void comparePageOffersTheChartsWhenAKnobVaries()
    {
        ks::RunFileLoader loader;
        ks::ComparePage page(&loader);
        std::shared_ptr<const ks::LoadedRunFile> last;
        connect(&loader, &ks::RunFileLoader::loaded, this, [&](std::shared_ptr<const ks::LoadedRunFile> r) {
            last = r;
            page.setResult(r);
        });
        loader.load(m_run);
        QTRY_VERIFY_WITH_TIMEOUT(last && last->intervals, 120000);
        auto* tabs = page.findChild<QTabWidget*>();
        QVERIFY(tabs);
        QVERIFY(tabs->isTabVisible(1));
        QVERIFY(page.knobRange()->hasKnobChart());
        const ks::KnobResponse& shown = page.knobRange()->knobPlot()->response();
        QCOMPARE(shown.knob, QStringLiteral("max_num_seqs"));
        QCOMPARE(int(shown.series.size()), 2);
    }

    void liveKnobChartGrowsAPointPerFinishedConfiguration()
    {
        const quint16 port = freePort();
        json configs = json::array();
        for (int mns : { 2, 4, 8 })
            configs.push_back({ { "label", "mns" + std::to_string(mns) }, { "model", "sim-1.8b" },
                { "knobs", { { "max_num_seqs", mns } } } });
        const json spec
            = { { "name", "live-knob" }, { "target", { { "base_url", "http://127.0.0.1:" + std::to_string(port) } } },
                  { "server",
                      { { "command",
                            { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "sim-1.8b",
                                "--max-num-seqs", "{max_num_seqs}" } },
                          { "ready_timeout_s", 20 }, { "restart_between_configs", true } } },
                  { "configs", configs },
                  { "arms",
                      { { { "name", "burst" }, { "mode", "concurrency" }, { "concurrency", 8 }, { "requests", 16 },
                          { "max_tokens", 16 } } } },
                  { "prompts", { { "input_tokens", 16 } } } };
        ks::MainWindow window;
        window.resize(1280, 800);
        window.show();
        QString error;
        QVERIFY(window.document()->load(QByteArray::fromStdString(spec.dump()), &error));
        // After each comparison of the experiment so far: how many points the live knob chart has.
        QList<int> shown;
        int handedWhileHidden = 0; // comparisons the hidden Compare page got during the run
        connect(window.loader(), &ks::RunFileLoader::loaded, this, [&](std::shared_ptr<const ks::LoadedRunFile> r) {
            if (r->file != window.liveRunFile())
                return;
            if (window.isRunning() && window.comparePage()->result() == r)
                ++handedWhileHidden;
            const ks::KnobPlot* chart = window.livePage()->knobChart();
            int points = 0;
            for (const ks::KnobSeries& s : chart->response().series)
                points += int(s.points.size());
            shown << (chart->isVisibleTo(window.livePage()) ? points : 0);
        });
        QSignalSpy ended(&window, &ks::MainWindow::runEnded);
        window.run();
        QVERIFY(ended.wait(120000));
        QTRY_VERIFY_WITH_TIMEOUT(window.loader()->current() && window.loader()->current()->intervals
                && window.loader()->current()->file->runs.size() == 3,
            60000);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.back() == 3, 30000);
        QVERIFY2(shown.contains(0), "hidden while one configuration has finished");
        QVERIFY2(shown.contains(2), "two points once two configurations have finished");
        QVERIFY(std::is_sorted(shown.begin(), shown.end()));
        // The Live page was in front: Compare was not redrawn per arm, and has the last comparison now.
        QCOMPARE(handedWhileHidden, 0);
        QTRY_COMPARE(window.comparePage()->result(), window.loader()->current());
    }
};

QTEST_MAIN(TestKnobCharts)
#include "tst_knobcharts.moc"
