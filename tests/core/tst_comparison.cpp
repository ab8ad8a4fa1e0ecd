#include "common/comparisonroundtrip.h"
#include "compare/compareformat.h"
#include "compare/comparison.h"
#include "compare/runtorun.h"
#include "compare/sequentialconfidence.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace ks;

namespace {

RunData run(const QString& config, const QString& arm, double ttftScale, quint64 seed, bool gentle)
{
    RunData data;
    data.config = config;
    data.arm = arm;
    data.run = config + QLatin1Char('/') + arm;
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> ttft(1.0);
    for (int i = 0; i < 150; ++i) {
        RequestRecord r;
        r.id = i;
        r.tSendUs = qint64(i) * 10'000;
        r.ttftUs = qint64((50 + 100 * ttft(rng)) * ttftScale * 1000);
        r.e2eUs = r.ttftUs + 9 * 20'000;
        r.outTokens = 10;
        r.itlUs.assign(9, 20'000);
        r.ok = true;
        data.requests.push_back(r);
    }
    data.summary
        = runSummaryFromJson({ { "gentle", gentle }, { "server", { { "max_waiting", gentle ? 0.0 : 12.0 } } } });
    return data;
}

// One repeat of an arm: `n` requests whose TTFT follows one distribution,
// scaled by `scale` (the configuration) times `drift` (this run's own luck).
RunData repeatRun(const QString& config, int repeat, double scale, double drift, quint64 seed, int n = 2000)
{
    RunData data = run(config, QStringLiteral("stress"), 1.0, seed, false);
    data.run = config + QStringLiteral("/stress") + (repeat > 1 ? QStringLiteral("#%1").arg(repeat) : QString());
    data.info = { { "repeat", repeat } };
    data.requests = RequestTable();
    data.requests.setRun(data.run);
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> ttft(1.0);
    for (int i = 0; i < n; ++i) {
        RequestRecord r;
        r.id = i;
        r.tSendUs = qint64(i) * 10'000;
        r.ttftUs = qint64((50 + 100 * ttft(rng)) * scale * drift * 1000);
        r.e2eUs = r.ttftUs + 9 * 20'000;
        r.outTokens = 10;
        r.itlUs.assign(9, 20'000);
        r.ok = true;
        data.requests.push_back(r);
    }
    return data;
}

// One step of a rate sweep: requests arriving every 1/rate s, each taking 1 s,
// with TTFT `ttftMs` (and `lag` > 1: completions spread out, the server fell behind).
RunData sweepStep(const QString& config, double rate, double ttftMs, double lag = 1.0)
{
    RunData data;
    data.config = config;
    data.arm = QStringLiteral("knee@%1").arg(rate);
    data.run = config + QLatin1Char('/') + data.arm;
    data.info = { { "sweep", { { "arm", "knee" }, { "over", "rate" }, { "value", rate }, { "step", "rate" } } } };
    const int n = int(rate * 20);
    for (int i = 0; i < n; ++i) {
        RequestRecord r;
        r.id = i;
        r.tSchedUs = r.tSendUs = qint64(i * 1e6 / rate);
        r.ttftUs = qint64(ttftMs * 1000);
        r.e2eUs = qint64(1e6 + i * (lag - 1.0) * 1e6 / rate);
        r.outTokens = 10;
        r.itlUs.assign(9, 20'000);
        r.ok = true;
        data.requests.push_back(r);
    }
    return data;
}

} // namespace

class TestComparison : public QObject {
    Q_OBJECT
private slots:
    // One run a side: the block bootstrap sees the 3x, but nothing measured how
    // far two runs differ, so nothing is called significant and the note says why.
    void singleRunsAreJudgedWithinTheRunOnly()
    {
        RunFile file;
        file.runs = { run(QStringLiteral("a"), QStringLiteral("stress"), 1.0, 1, false),
            run(QStringLiteral("b"), QStringLiteral("stress"), 3.0, 2, false),
            run(QStringLiteral("a"), QStringLiteral("gentle"), 1.0, 3, true),
            run(QStringLiteral("b"), QStringLiteral("gentle"), 1.0, 4, true) };
        QString error;
        const auto arms = test::comparedChecked(file, {}, &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(arms.size(), std::size_t(2));
        const auto& stress = arms[0];
        QCOMPARE(stress["arm"].get<std::string>(), std::string("stress"));
        QCOMPARE(stress["baseline"].get<std::string>(), std::string("a"));
        QCOMPARE(stress["gentle"].get<bool>(), false);
        const auto& slower = stress["configs"][1];
        const double ratio = slower["ratio"]["ttft_ms"]["p50"].get<double>();
        QVERIFY2(ratio > 2.4 && ratio < 3.6, qPrintable(QString::number(ratio)));
        QCOMPARE(slower["ratio_ci95"]["method"].get<std::string>(), std::string("within-run"));
        QVERIFY(!slower["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(slower["within_run_significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(!slower["within_run_significant"]["tpot_ms"]["p50"].get<bool>()); // identical TPOT
        QCOMPARE(slower["run_to_run"]["measured"].get<bool>(), false);
        QVERIFY(QString::fromStdString(slower["run_to_run"]["note"].get<std::string>())
                    .contains(QStringLiteral("run-to-run not measured: add repeats or calibrate")));
        QVERIFY(!slower.contains("rounds_needed")); // no spread measured: nothing to say how many
        QCOMPARE(slower["why"]["kind"].get<std::string>(), std::string("unmeasured"));
        QCOMPARE(slower["max_waiting"].get<double>(), 12.0);
        const auto& gentle = arms[1];
        QCOMPARE(gentle["gentle"].get<bool>(), true);
        QVERIFY(gentle.contains("warning"));
        QVERIFY(!gentle["configs"][1]["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(!stress["configs"][0]["significant"]["ttft_ms"]["p50"].get<bool>()); // the baseline against itself
    }

    // The same pair with an A/A calibration of the baseline: its runs' spread
    // widens the interval and makes the verdict; one that does not match is not used.
    void aCalibrationJudgesSingleRuns()
    {
        RunFile file;
        file.runs = { run(QStringLiteral("a"), QStringLiteral("stress"), 1.0, 1, false),
            run(QStringLiteral("b"), QStringLiteral("stress"), 3.0, 2, false) };
        auto calibration = std::make_shared<Calibration>();
        calibration->file = QStringLiteral("/tmp/cal.jsonl");
        calibration->date = QStringLiteral("2026-12-04T10:00:00Z");
        calibration->config = QStringLiteral("a");
        calibration->runs = 6;
        Calibration::Arm& arm = calibration->arms[QStringLiteral("stress")];
        arm.runs = 6;
        arm.identity = calibrationIdentity(file, file.runs[0]);
        for (const char* id : { "ttft_ms.p50", "ttft_ms.p99", "tpot_ms.p50", "e2e_ms.p50" })
            arm.logSd[id] = 0.10;
        CompareOptions options;
        options.calibration = calibration;
        QString error;
        auto arms = test::comparedChecked(file, options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto b = arms[0]["configs"][1];
        QCOMPARE(b["ratio_ci95"]["method"].get<std::string>(), std::string("calibrated"));
        QVERIFY(b["run_to_run"]["measured"].get<bool>());
        QCOMPARE(b["run_to_run"]["calibration"]["runs"].get<int>(), 6);
        QVERIFY(b["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(!b["significant"]["tpot_ms"]["p50"].get<bool>());
        // t(5) * sqrt(2) * 0.10 = 0.364 in logs, wider than the bootstrap's: the interval is that about the ratio.
        const double r = b["ratio"]["tpot_ms"]["p50"].get<double>();
        const auto ci = b["ratio_ci95"]["tpot_ms"]["p50"];
        QVERIFY2(std::abs(std::log(ci[1].get<double>() / r) - 2.5706 * std::sqrt(2.0) * 0.10) < 1e-3,
            qPrintable(QString::fromStdString(ci.dump())));
        QVERIFY(b["rounds_needed"]["tpot_ms"]["p50"].is_number_integer());
        // A calibration of another model does not speak for this run.
        arm.identity["model"] = "another";
        arms = test::comparedChecked(file, options, &error);
        const auto c = arms[0]["configs"][1];
        QCOMPARE(c["ratio_ci95"]["method"].get<std::string>(), std::string("within-run"));
        QVERIFY2(
            QString::fromStdString(c["run_to_run"]["note"].get<std::string>()).contains(QStringLiteral("the model")),
            c["run_to_run"]["note"].get<std::string>().c_str());

        // A baseline run like the calibration's runs is judged by it; one that
        // lies outside their spread (a busier machine than the calibration's) is not.
        arm.identity = calibrationIdentity(file, file.runs[0]);
        const auto baseline = arms[0]["configs"][0];
        for (const char* metric : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" }) {
            arm.logSd[std::string(metric) + ".p50"] = 0.10;
            arm.logMean[std::string(metric) + ".p50"] = std::log(baseline[metric]["p50"].get<double>()) + 0.05;
        }
        arms = test::comparedChecked(file, options, &error);
        QCOMPARE(arms[0]["configs"][1]["ratio_ci95"]["method"].get<std::string>(), std::string("calibrated"));
        // Four p50s checked: t(5) at 1 - 0.0125 / 2 is 3.81, and 3.81 * 0.10 * sqrt(1 + 1/6) = 0.412 in logs is the
        // most a p50 may be off.
        arm.logMean["tpot_ms.p50"] = std::log(baseline["tpot_ms"]["p50"].get<double>()) + 0.42;
        arms = test::comparedChecked(file, options, &error);
        const auto stale = arms[0]["configs"][1];
        QCOMPARE(stale["ratio_ci95"]["method"].get<std::string>(), std::string("within-run"));
        QVERIFY(!stale["run_to_run"]["measured"].get<bool>());
        const QString note = QString::fromStdString(stale["run_to_run"]["note"].get<std::string>());
        QVERIFY2(note.contains(QStringLiteral("(the calibration does not speak for this run's conditions: the "
                                              "baseline's run lies outside the calibration's runs, TPOT p50 34.3 % "
                                              "below their mean where they spread 10.5 %; calibrate again beside the "
                                              "runs)")),
            qPrintable(note));
        QVERIFY(!stale["significant"]["ttft_ms"]["p50"].get<bool>());
        arm.logMean["tpot_ms.p50"] = std::log(baseline["tpot_ms"]["p50"].get<double>()) + 0.40;
        arms = test::comparedChecked(file, options, &error);
        QCOMPARE(arms[0]["configs"][1]["ratio_ci95"]["method"].get<std::string>(), std::string("calibrated"));
    }

    // Rounds whose conditions move both configurations alike (a machine getting
    // busier): paired by round, the shared luck cancels and a 10 % change shows.
    void pairedRoundsCancelWhatARoundShares()
    {
        RunFile file;
        const double luck[] = { 0.80, 1.00, 1.25 };
        for (int k = 0; k < 3; ++k) {
            file.runs.push_back(repeatRun(QStringLiteral("a"), k + 1, 1.0, luck[k], 50 + k, 1500));
            file.runs.push_back(repeatRun(QStringLiteral("b"), k + 1, 1.10, luck[k], 50 + k, 1500));
        }
        CompareOptions options;
        options.resamples = 200;
        QString error;
        const auto arms = test::comparedChecked(file, options, &error);
        const auto& b = arms[0]["configs"][1];
        QCOMPARE(b["ratio_ci95"]["method"].get<std::string>(), std::string("rounds"));
        QCOMPARE(b["run_to_run"]["rounds"].get<int>(), 3);
        QVERIFY(QString::fromStdString(b["run_to_run"]["note"].get<std::string>())
                    .contains(QStringLiteral("3 paired rounds")));
        QVERIFY2(b["significant"]["ttft_ms"]["p50"].get<bool>(), b["ratio_ci95"]["ttft_ms"]["p50"].dump().c_str());
        // Shuffled so that the luck no longer lines up, the same values do not show it.
        RunFile shuffled = file;
        for (RunData& r : shuffled.runs)
            if (r.config == QLatin1String("b"))
                r.info["repeat"] = 1 + (r.info["repeat"].get<int>() % 3);
        const auto loose = test::comparedChecked(shuffled, options, &error);
        QVERIFY(!loose[0]["configs"][1]["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(loose[0]["configs"][1]["rounds_needed"]["ttft_ms"]["p50"].is_number_integer());
        // The Compare page's quick first pass (no resamples): ratios only, and the note says so, still
        // counting the paired rounds; nothing is called noise.
        options.resamples = 0;
        const auto quick = test::comparedChecked(file, options, &error);
        const auto& q = quick[0]["configs"][1];
        QCOMPARE(q["run_to_run"]["rounds"].get<int>(), 3);
        QCOMPARE(q["run_to_run"]["note"].get<std::string>(),
            std::string("no intervals computed yet (the quick first pass); run-to-run from 3 paired rounds"));
        QVERIFY(q["ratio_ci95"].empty());
        QVERIFY(q["why"]["kind"].get<std::string>() != "noise");
    }

    // A warm-up the arm settles from is dropped; an arm whose TTFT keeps climbing is called unsettled.
    void warmUpIsDroppedAndAClimbIsFlagged()
    {
        RunData settles = run(QStringLiteral("a"), QStringLiteral("stress"), 1.0, 7, false);
        RunData climbs = run(QStringLiteral("b"), QStringLiteral("stress"), 1.0, 8, false);
        RequestTable first, second;
        first.setRun(settles.run);
        second.setRun(climbs.run);
        int i = 0;
        for (RequestRecord r : settles.requests) {
            if (i < 40)
                r.ttftUs *= 20; // the first wave queued behind everyone
            first.push_back(r);
            ++i;
        }
        i = 0;
        for (RequestRecord r : climbs.requests) {
            r.ttftUs += qint64(i++) * 20'000; // a queue that grows to the end
            second.push_back(r);
        }
        settles.requests = std::move(first);
        climbs.requests = std::move(second);
        RunFile file;
        file.runs = { settles, climbs };
        CompareOptions options;
        options.resamples = 100;
        QString error;
        const auto arms = test::comparedChecked(file, options, &error);
        const auto& a = arms[0]["configs"][0];
        QCOMPARE(a["steady"]["method"].get<std::string>(), std::string("MSER-5"));
        const int dropped = a["steady"]["dropped"].get<int>();
        QVERIFY2(dropped >= 40 && dropped <= 50, qPrintable(QString::number(dropped)));
        QVERIFY(a["steady"]["settled"].get<bool>());
        QCOMPARE(a["requests"].get<int>(), 150); // what was sent, warm-up included
        QVERIFY(a["raw"]["ttft_ms"]["p99"].get<double>() > a["ttft_ms"]["p99"].get<double>());
        const auto& b = arms[0]["configs"][1];
        QVERIFY(!b["steady"]["settled"].get<bool>());
        QCOMPARE(arms[0]["unsettled"][0].get<std::string>(), std::string("b"));
        QVERIFY(QString::fromStdString(arms[0]["warning"].get<std::string>()).contains(QStringLiteral("still moving")));
    }

    // A calibration file: one configuration's rounds, each run's spread of log values per statistic.
    void aCalibrationIsReadFromItsRuns()
    {
        RunFile file;
        file.experiment = { { "type", "experiment" }, { "started_at", "2026-12-04T09:30:00.000Z" },
            { "calibration", { { "config", "a" }, { "runs", 3 } } } };
        const double luck[] = { 0.9, 1.0, 1.1 };
        for (int k = 0; k < 3; ++k)
            file.runs.push_back(repeatRun(QStringLiteral("a"), k + 1, 1.0, luck[k], 70, 400));
        for (RunData& r : file.runs)
            r.summary = runSummaryFromJson({ { "requests", 400 } });
        QString error;
        const auto calibration = calibrationFromRunFile(file, QStringLiteral("dir/cal.jsonl"), &error);
        QVERIFY2(calibration, qPrintable(error));
        QCOMPARE(calibration->runs, 3);
        QCOMPARE(calibration->config, QStringLiteral("a"));
        QVERIFY2(calibration->citation() == QStringLiteral("A/A calibration: 3 runs of a, 2026-12-04 (cal.jsonl)"),
            qPrintable(calibration->citation()));
        const Calibration::Arm& arm = calibration->arms.at(QStringLiteral("stress"));
        // The same requests scaled by 0.9, 1.0, 1.1: the sd of log 0.9, log 1.0 and log 1.1 (0.1004).
        QVERIFY2(std::abs(arm.logSd.at("ttft_ms.p50") - 0.1004) < 0.002,
            qPrintable(QString::number(arm.logSd.at("ttft_ms.p50"))));
        QVERIFY(arm.logSd.at("tpot_ms.p50") < 1e-9); // TPOT was the same in every run
        // Two configurations and no marker: not a calibration.
        file.experiment.erase("calibration");
        file.runs.push_back(repeatRun(QStringLiteral("b"), 1, 1.0, 1.0, 71, 100));
        QVERIFY(!calibrationFromRunFile(file, QStringLiteral("x.jsonl"), &error));
        QVERIFY2(error.contains(QStringLiteral("not an A/A calibration")), qPrintable(error));
    }

    // Repeats until decided look after every round: each look spends its share of the 5 %.
    void sequentialLooksLowerEachLooksConfidence()
    {
        QCOMPARE(roundsConfidence(nlohmann::json::object()), 0.95);
        QCOMPARE(roundsConfidence({ { "repeats", 3 } }), 0.95);
        const nlohmann::json spec
            = { { "repeats", { { "min", 2 }, { "max", 10 }, { "until", { { "half_width", 0.05 } } } } } };
        QCOMPARE(plannedLooks(spec), 9);
        QVERIFY(std::abs(roundsConfidence(spec) - (1 - 0.05 / 9)) < 1e-12);
    }

    void roundsNeededFollowsTheSpread()
    {
        // (t(n-1) + z(0.8)) * 0.1 / sqrt(n) <= log(1.05) first at n = 35 or so.
        const auto n = roundsNeeded(0.10, 0.0, 3, 0.95);
        QVERIFY(n && *n >= 30 && *n <= 40);
        QCOMPARE(roundsNeeded(0.0, 0.0, 3, 0.95).value_or(-1), 2);
        QVERIFY(!roundsNeeded(std::nan(""), 0.0, 3, 0.95));
        QVERIFY(!roundsNeeded(5.0, 0.0, 3, 0.95)); // past 1000 rounds
    }

    void baselineCanBeChosenAndMustExist()
    {
        RunFile file;
        file.runs = { run(QStringLiteral("a"), QStringLiteral("s"), 1.0, 1, false),
            run(QStringLiteral("b"), QStringLiteral("s"), 2.0, 2, false) };
        QString error;
        CompareOptions options;
        options.baseline = QStringLiteral("b");
        const auto arms = test::comparedChecked(file, options, &error);
        QVERIFY(arms[0]["configs"][0]["ratio"]["ttft_ms"]["p50"].get<double>() < 0.7);
        options.baseline = QStringLiteral("zzz");
        test::comparedChecked(file, options, &error);
        QVERIFY(error.contains(QStringLiteral("zzz")));
    }

    // Goodput counts requests meeting the experiment's SLO (from the file's
    // experiment line), and an explicit SLO overrides it.
    void goodputUsesTheFilesSlo()
    {
        RunFile file;
        file.runs = { run(QStringLiteral("a"), QStringLiteral("s"), 1.0, 1, false) };
        std::vector<double> ttftMs;
        for (const RequestRecord& r : file.runs[0].requests)
            ttftMs.push_back(double(r.ttftUs) / 1000.0);
        std::sort(ttftMs.begin(), ttftMs.end());
        const double limit = ttftMs[ttftMs.size() / 2]; // half the requests meet it (ties aside)
        const auto meeting = double(std::count_if(ttftMs.begin(), ttftMs.end(), [&](double v) { return v <= limit; }));
        file.experiment = { { "type", "experiment" }, { "spec", { { "slo", { { "ttft_ms", limit } } } } } };
        QString error;
        const auto arms = test::comparedChecked(file, {}, &error);
        const auto& entry = arms[0]["configs"][0];
        const double reqPerS = entry["req_per_s"].get<double>();
        QCOMPARE(entry["goodput_req_per_s"].get<double>(), reqPerS * meeting / double(ttftMs.size()));
        QCOMPARE(arms[0]["slo"]["ttft_ms"].get<double>(), limit);

        CompareOptions loose;
        loose.slo = Slo { 1e9, 0 };
        const auto overridden = test::comparedChecked(file, loose, &error);
        QCOMPARE(overridden[0]["configs"][0]["goodput_req_per_s"].get<double>(), reqPerS);
    }

    // Two identical configurations whose repeats differ only by run-to-run luck:
    // 3000 pooled requests make the bootstrap over requests tight enough to call
    // a 9 % luck difference real; the repeats' own spread must overrule it.
    void identicalConfigurationsAreNotCalledDifferent()
    {
        RunFile file;
        const double luckA[] = { 0.88, 0.97, 1.02 };
        const double luckB[] = { 1.03, 1.12, 0.99 };
        for (int k = 0; k < 3; ++k) {
            file.runs.push_back(repeatRun(QStringLiteral("a"), k + 1, 1.0, luckA[k], 10 + k, 1000));
            file.runs.push_back(repeatRun(QStringLiteral("b"), k + 1, 1.0, luckB[k], 20 + k, 1000));
        }
        QString error;
        CompareOptions options;
        options.resamples = 200;
        const auto arms = test::comparedChecked(file, options, &error);
        QCOMPARE(arms.size(), std::size_t(1));
        const auto& b = arms[0]["configs"][1];
        QCOMPARE(b["repeats"]["n"].get<int>(), 3);
        QCOMPARE(b["requests"].get<int>(), 3000); // pooled
        QCOMPARE(b["ratio_ci95"]["method"].get<std::string>(), std::string("rounds"));
        // The pooled requests alone would call the luck real; the rounds' spread overrules them.
        const auto ci = b["ratio_ci95"]["ttft_ms"]["p50"];
        QVERIFY2(ci[0].get<double>() < 1.0 && ci[1].get<double>() > 1.0, ci.dump().c_str());
        QVERIFY(b["rounds_needed"]["ttft_ms"]["p50"].get<int>() > 3);
        QVERIFY(!b["significant"]["ttft_ms"]["p50"].get<bool>());
        const QString md = compareMarkdown(arms);
        QVERIFY2(md.contains(QStringLiteral("Repeats of b (3 runs): TTFT p50 mean")), qPrintable(md));
        // Each repeat's median, by hand: the spread object keeps them in run order.
        const auto values = b["repeats"]["spread"]["ttft_ms"]["p50"]["values"];
        QCOMPARE(values.size(), std::size_t(3));
        QVERIFY(values[1].get<double>() > values[2].get<double>()); // luck 1.12 over 0.99
    }

    // Each configuration's split comes with its source: recomputed from the
    // records (llama.cpp's timings), or the live summary's from vLLM's histograms.
    void ttftSplitPerConfiguration()
    {
        RunFile file;
        RunData llama = run(QStringLiteral("a"), QStringLiteral("stress"), 1.0, 1, false);
        RequestTable timed;
        timed.setRun(llama.run);
        for (RequestRecord r : llama.requests) {
            r.tHeadersUs = r.tSendUs + 3000;
            r.server.promptMs = 20;
            timed.push_back(r);
        }
        llama.requests = std::move(timed);
        RunData vllm = run(QStringLiteral("b"), QStringLiteral("stress"), 1.0, 2, false);
        vllm.summary.value().rest["ttft_split_ms"] = { { "queue", { { "p50", 250.0 }, { "mean", 300.0 } } },
            { "prefill", { { "p50", 420.0 }, { "mean", 450.0 } } }, { "rest", { { "mean", 150.0 } } },
            { "source", "vllm-histograms" }, { "requests", 100 } };
        RunData none = run(QStringLiteral("c"), QStringLiteral("stress"), 1.0, 3, false);
        file.runs = { llama, vllm, none };
        QString error;
        CompareOptions options;
        options.resamples = 0;
        const auto arms = test::comparedChecked(file, options, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto& configs = arms[0]["configs"];
        QCOMPARE(configs[0]["ttft_split_ms"]["source"].get<std::string>(), std::string("llamacpp-timings"));
        QCOMPARE(configs[0]["ttft_split_ms"]["queue"]["p50"].get<double>(), 3.0);
        QCOMPARE(configs[1]["ttft_split_ms"]["source"].get<std::string>(), std::string("vllm-histograms"));
        QVERIFY(!configs[2].contains("ttft_split_ms"));
        const QString md = compareMarkdown(arms);
        // Each line names its source; from histograms the exact means; no source, no split, and why.
        QVERIFY2(md.contains(QStringLiteral(
                     "- a, from llamacpp-timings (150 requests): queue p50 3.0; prefill p50 20.0; rest p50 ")),
            qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("- b, from vllm-histograms (100 requests): queue mean 300.0; prefill "
                                            "mean 450.0; rest mean 150.0 ms")),
            qPrintable(md));
        QVERIFY2(md.contains(QStringLiteral("- c: no split: the server publishes no queue timing")), qPrintable(md));
    }

    void aRealThreefoldDifferenceIsCalledByBoth()
    {
        RunFile file;
        const double luck[] = { 0.95, 1.00, 1.05 };
        for (int k = 0; k < 3; ++k) {
            file.runs.push_back(repeatRun(QStringLiteral("a"), k + 1, 1.0, luck[k], 30 + k, 300));
            file.runs.push_back(repeatRun(QStringLiteral("b"), k + 1, 3.0, luck[2 - k], 40 + k, 300));
        }
        QString error;
        CompareOptions options;
        options.resamples = 200;
        const auto arms = test::comparedChecked(file, options, &error);
        const auto& b = arms[0]["configs"][1];
        const double ratio = b["ratio"]["ttft_ms"]["p50"].get<double>();
        QVERIFY2(ratio > 2.6 && ratio < 3.4, qPrintable(QString::number(ratio)));
        const auto ci = b["ratio_ci95"]["ttft_ms"]["p50"];
        QVERIFY2(ci[0].get<double>() > 1.0, ci.dump().c_str());
        QVERIFY(b["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(!b["significant"]["tpot_ms"]["p50"].get<bool>()); // identical TPOT
    }

    void sweepCapacityPerConfiguration()
    {
        RunFile file;
        file.experiment = { { "spec", { { "slo", { { "ttft_ms", 500 } } } } } };
        for (double rate : { 1.0, 2.0, 4.0, 8.0 })
            file.runs.push_back(sweepStep(QStringLiteral("small"), rate, rate <= 2 ? 100 : 800));
        for (double rate : { 1.0, 2.0, 4.0, 8.0, 16.0 }) // 16 meets the SLO but falls behind
            file.runs.push_back(sweepStep(QStringLiteral("big"), rate, 100, rate == 16 ? 1.5 : 1.0));
        QString error;
        CompareOptions options;
        options.resamples = 0; // capacity needs no intervals
        const auto arms = test::comparedChecked(file, options, &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(arms[0]["arm"].get<std::string>(), std::string("knee")); // the sweep before its steps
        const auto& sweep = arms[0]["sweep"];
        QCOMPARE(sweep["over"].get<std::string>(), std::string("rate"));
        QVERIFY(sweep["values"] == nlohmann::json({ 1.0, 2.0, 4.0, 8.0, 16.0 }));
        QCOMPARE(sweep["capacity"]["small"].get<double>(), 2.0);
        QCOMPARE(sweep["capacity"]["big"].get<double>(), 8.0);
        QVERIFY(!sweep["points"]["big"][4]["kept_up"].get<bool>());
        QCOMPARE(arms[1]["arm"].get<std::string>(), std::string("knee@1")); // every step still side by side
        QCOMPARE(arms[1]["sweep_arm"].get<std::string>(), std::string("knee"));
        const QString md = compareMarkdown(arms);
        // The capacity step is named by what it offered and placed by what it achieved, both said.
        auto achievedAt = [&sweep](const char* config, double value) {
            for (const auto& p : sweep["points"][config])
                if (p["value"] == value)
                    return p["achieved_req_per_s"].get<double>();
            return -1.0;
        };
        QCOMPARE(sweep["capacity_achieved_req_per_s"]["small"].get<double>(), achievedAt("small", 2.0));
        QCOMPARE(sweep["capacity_achieved_req_per_s"]["big"].get<double>(), achievedAt("big", 8.0));
        const QString line = QStringLiteral("small sustains 2 req/s offered (%1 achieved) within TTFT p99 ≤ 500 ms; "
                                            "big sustains 8 req/s offered (%2 achieved)")
                                 .arg(achievedAt("small", 2.0), 0, 'f', 2)
                                 .arg(achievedAt("big", 8.0), 0, 'f', 2);
        QVERIFY2(md.contains(line), qPrintable(md + QStringLiteral("\nwanted: ") + line));
        QVERIFY(compareCsv(arms).contains(QStringLiteral("knee,big,capacity,,8,")));
    }

    // A wrong-typed SLO in the file is ignored, never thrown.
    void wrongTypedSloIsIgnored()
    {
        RunFile file;
        file.experiment = { { "spec", { { "slo", { { "ttft_ms", "fast" }, { "tpot_ms", 20 } } } } } };
        const Slo slo = experimentSlo(file.experiment);
        QCOMPARE(slo.ttftMs, 0.0);
        QCOMPARE(slo.tpotMs, 20.0);
        file.experiment = { { "spec", "not an object" } };
        QCOMPARE(experimentSlo(file.experiment).tpotMs, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "tst_comparison.moc"
