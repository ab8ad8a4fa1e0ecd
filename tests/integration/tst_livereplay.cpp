// One pipeline for live and replayed data: a replayed file draws exactly the
// points the live run drew (docs/architecture.md, "The pipeline").
#include "experiment/experimentrunner.h"
#include "source/replayfeed.h"

#include "common/freeport.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace ks;
using nlohmann::json;

namespace {

using Points = std::map<QString, std::vector<RunSnapshot>>;

json spec(quint16 port)
{
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    return {
        { "name", "points" },
        { "target", { { "base_url", url } } },
        { "server",
            { { "command",
                  { KNOBSCOPE_SIM_BIN, "--port", std::to_string(port), "--profile", "{model}", "--max-num-seqs",
                      "{max_num_seqs}" } },
                { "ready_timeout_s", 20 } } },
        { "configs",
            { { { "label", "mns4" }, { "model", "sim-1.8b" }, { "knobs", { { "max_num_seqs", 4 } } } },
                { { "label", "mns16" }, { "model", "sim-reasoning" }, { "knobs", { { "max_num_seqs", 16 } } } } } },
        { "arms",
            { { { "name", "queue" }, { "mode", "concurrency" }, { "concurrency", 12 }, { "requests", 60 },
                { "max_tokens", 32 } } } },
        { "prompts", { { "input_tokens", 16 } } },
        { "probes", { { "repeats", 1 }, { "max_tokens", 8 }, { "concurrency", 8 } } },
    };
}

bool samePercentiles(const PercentileSummary& a, const PercentileSummary& b)
{
    return a.p50 == b.p50 && a.p90 == b.p90 && a.p95 == b.p95 && a.p99 == b.p99 && a.max == b.max && a.mean == b.mean
        && a.count == b.count;
}

/// Field by field, exactly: both sides ran the same code over the same records.
QString difference(const RunSnapshot& a, const RunSnapshot& b)
{
    if (a.atS != b.atS)
        return QStringLiteral("atS %1 vs %2").arg(a.atS).arg(b.atS);
    if (a.done != b.done || a.ok != b.ok || a.errors != b.errors || a.errorsByReason != b.errorsByReason)
        return QStringLiteral("counts %1/%2/%3 vs %4/%5/%6")
            .arg(a.done)
            .arg(a.ok)
            .arg(a.errors)
            .arg(b.done)
            .arg(b.ok)
            .arg(b.errors);
    if (!samePercentiles(a.ttftMs, b.ttftMs) || !samePercentiles(a.tpotMs, b.tpotMs)
        || !samePercentiles(a.itlMs, b.itlMs))
        return QStringLiteral("cumulative percentiles");
    if (!samePercentiles(a.ttftWindowMs, b.ttftWindowMs) || !samePercentiles(a.tpotWindowMs, b.tpotWindowMs)
        || !samePercentiles(a.itlWindowMs, b.itlWindowMs))
        return QStringLiteral("window percentiles");
    if (a.windowReqPerS != b.windowReqPerS || a.windowOutTokPerS != b.windowOutTokPerS)
        return QStringLiteral("window rates");
    if (a.probeOutputs != b.probeOutputs || a.driftMismatches != b.driftMismatches)
        return QStringLiteral("drift %1/%2 vs %3/%4")
            .arg(a.probeOutputs)
            .arg(a.driftMismatches)
            .arg(b.probeOutputs)
            .arg(b.driftMismatches);
    if (a.serverRunning != b.serverRunning || a.serverWaiting != b.serverWaiting || a.kvCacheUsage != b.kvCacheUsage)
        return QStringLiteral("server %1/%2 vs %3/%4")
            .arg(a.serverRunning)
            .arg(a.serverWaiting)
            .arg(b.serverRunning)
            .arg(b.serverWaiting);
    if (a.gpu.count != b.gpu.count || a.gpu.utilPct != b.gpu.utilPct || a.gpu.memUsedMib != b.gpu.memUsedMib
        || a.gpu.memTotalMib != b.gpu.memTotalMib || a.gpu.powerW != b.gpu.powerW)
        return QStringLiteral("gpu %1 GPUs %2 %% %3 W vs %4 GPUs %5 %% %6 W")
            .arg(a.gpu.count)
            .arg(a.gpu.utilPct)
            .arg(a.gpu.powerW)
            .arg(b.gpu.count)
            .arg(b.gpu.utilPct)
            .arg(b.gpu.powerW);
    return {};
}

// A stand-in for nvidia-smi: two GPUs, the second without utilization or
// power, in the documented CSV; the inventory query gets its own answer.
QString nvidiaSmiStandIn(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("nvidia-smi"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(
        "#!/bin/sh\n"
        "case \"$*\" in\n"
        "*utilization.gpu*) printf '0, 87, 70000, 143771, 612.25\\n1, [N/A], 1200, 143771, [Not Supported]\\n' ;;\n"
        "*) printf 'NVIDIA H200, 550.54.15, 143771\\nNVIDIA H200, 550.54.15, 143771\\n' ;;\n"
        "esac\n");
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

Points replay(const QString& path, double speed)
{
    Points points;
    ReplayFeed feed(path, speed);
    QObject::connect(&feed, &ReplayFeed::snapshotReady,
        [&points](const QString& run, const RunSnapshot& s) { points[run].push_back(s); });
    QSignalSpy finished(&feed, &ReplayFeed::finished);
    feed.start();
    if (!finished.wait(120000))
        return {};
    return points;
}

QString comparePoints(const Points& live, const Points& replayed)
{
    if (live.size() != replayed.size())
        return QStringLiteral("%1 runs live, %2 replayed").arg(live.size()).arg(replayed.size());
    for (const auto& [run, points] : live) {
        const auto other = replayed.find(run);
        if (other == replayed.end())
            return QStringLiteral("%1 not replayed").arg(run);
        if (points.size() != other->second.size())
            return QStringLiteral("%1: %2 points live, %3 replayed")
                .arg(run)
                .arg(points.size())
                .arg(other->second.size());
        for (std::size_t i = 0; i < points.size(); ++i) {
            if (const QString d = difference(points[i], other->second[i]); !d.isEmpty())
                return QStringLiteral("%1 point %2: %3").arg(run).arg(i).arg(d);
        }
    }
    return {};
}

} // namespace

class TestLiveReplay : public QObject {
    Q_OBJECT
private slots:
    void replayDrawsTheLiveRunsPointsExactly()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("points.jsonl"));
        qputenv("KNOBSCOPE_NVIDIA_SMI", nvidiaSmiStandIn(dir).toLocal8Bit());
        auto parsed = parseExperimentSpec(QByteArray::fromStdString(spec(freePort()).dump()));
        QVERIFY(std::holds_alternative<ExperimentSpec>(parsed));
        Points live;
        ExperimentRunner runner(std::get<ExperimentSpec>(std::move(parsed)), out);
        QObject::connect(&runner, &ExperimentRunner::snapshotReady,
            [&live](const QString& run, const RunSnapshot& s) { live[run].push_back(s); });
        QSignalSpy finished(&runner, &ExperimentRunner::finished);
        QCOMPARE(runner.start(), QString());
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toString(), QString());

        // Enough to mean something: several points per run, queueing seen by
        // the scraper, probe outputs counted.
        QCOMPARE(live.size(), std::size_t(4));
        bool sawWaiting = false;
        for (const auto& [run, points] : live) {
            QVERIFY2(points.size() >= 3, qPrintable(run));
            for (const RunSnapshot& s : points)
                sawWaiting = sawWaiting || s.serverWaiting >= 1;
        }
        QVERIFY(sawWaiting);
        // The GPUs, sampled during the arms: utilization is the mean of the
        // GPUs that report it, memory and power summed over those that do.
        const RunSnapshot& last = live[QStringLiteral("mns4/queue")].back();
        QCOMPARE(last.gpu.count, 2);
        QCOMPARE(last.gpu.utilPct, 87.0);
        QCOMPARE(last.gpu.memUsedMib, 71200.0);
        QCOMPARE(last.gpu.memTotalMib, 2 * 143771.0);
        QCOMPARE(last.gpu.powerW, 612.25);
        int gpuLines = 0;
        json gpuSummary;
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        while (!file.atEnd()) {
            const QByteArray line = file.readLine();
            const json j = json::parse(line.begin(), line.end(), nullptr, false);
            if (j.value("run", std::string()) != "mns4/queue")
                continue;
            gpuLines += j.value("type", std::string()) == "gpu" ? 1 : 0;
            if (j.value("type", std::string()) == "summary")
                gpuSummary = j.value("gpu", json());
        }
        QVERIFY(gpuLines >= 1);
        QCOMPARE(gpuSummary.value("samples", 0), gpuLines);
        QCOMPARE(gpuSummary.value("gpus", 0), 2);
        QCOMPARE(gpuSummary.value("util_pct_max", 0.0), 87.0);
        QCOMPARE(gpuSummary.value("power_w_mean", 0.0), 612.25);
        qunsetenv("KNOBSCOPE_NVIDIA_SMI");
        QCOMPARE(live[QStringLiteral("mns16/probes")].back().probeOutputs, 100);

        // As fast as possible, and paced: the same points.
        QCOMPARE(comparePoints(live, replay(out, 0)), QString());
        QCOMPARE(comparePoints(live, replay(out, 8)), QString());
    }
};

QTEST_GUILESS_MAIN(TestLiveReplay)
#include "tst_livereplay.moc"
