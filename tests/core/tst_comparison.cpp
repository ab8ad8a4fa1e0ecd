#include "metrics/comparison.h"

#include <QTest>

#include <algorithm>
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
    data.summary = { { "gentle", gentle }, { "server", { { "max_waiting", gentle ? 0.0 : 12.0 } } } };
    return data;
}

} // namespace

class TestComparison : public QObject {
    Q_OBJECT
private slots:
    void marksRealDifferencesAndNotNoise()
    {
        RunFile file;
        file.runs = { run(QStringLiteral("a"), QStringLiteral("stress"), 1.0, 1, false),
            run(QStringLiteral("b"), QStringLiteral("stress"), 3.0, 2, false),
            run(QStringLiteral("a"), QStringLiteral("gentle"), 1.0, 3, true),
            run(QStringLiteral("b"), QStringLiteral("gentle"), 1.0, 4, true) };
        QString error;
        const auto arms = compareRuns(file, {}, &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(arms.size(), std::size_t(2));
        const auto& stress = arms[0];
        QCOMPARE(stress["arm"].get<std::string>(), std::string("stress"));
        QCOMPARE(stress["baseline"].get<std::string>(), std::string("a"));
        QCOMPARE(stress["gentle"].get<bool>(), false);
        const auto& slower = stress["configs"][1];
        const double ratio = slower["ratio"]["ttft_ms"]["p50"].get<double>();
        QVERIFY2(ratio > 2.4 && ratio < 3.6, qPrintable(QString::number(ratio)));
        QVERIFY(slower["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(!slower["significant"]["tpot_ms"]["p50"].get<bool>()); // identical TPOT
        QCOMPARE(slower["max_waiting"].get<double>(), 12.0);
        const auto& gentle = arms[1];
        QCOMPARE(gentle["gentle"].get<bool>(), true);
        QVERIFY(gentle.contains("warning"));
        QVERIFY(!gentle["configs"][1]["significant"]["ttft_ms"]["p50"].get<bool>());
        QVERIFY(!stress["configs"][0]["significant"]["ttft_ms"]["p50"].get<bool>()); // the baseline against itself
    }

    void baselineCanBeChosenAndMustExist()
    {
        RunFile file;
        file.runs = { run(QStringLiteral("a"), QStringLiteral("s"), 1.0, 1, false),
            run(QStringLiteral("b"), QStringLiteral("s"), 2.0, 2, false) };
        QString error;
        CompareOptions options;
        options.baseline = QStringLiteral("b");
        const auto arms = compareRuns(file, options, &error);
        QVERIFY(arms[0]["configs"][0]["ratio"]["ttft_ms"]["p50"].get<double>() < 0.7);
        options.baseline = QStringLiteral("zzz");
        compareRuns(file, options, &error);
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
        const auto arms = compareRuns(file, {}, &error);
        const auto& entry = arms[0]["configs"][0];
        const double reqPerS = entry["req_per_s"].get<double>();
        QCOMPARE(entry["goodput_req_per_s"].get<double>(), reqPerS * meeting / double(ttftMs.size()));
        QCOMPARE(arms[0]["slo"]["ttft_ms"].get<double>(), limit);

        CompareOptions loose;
        loose.slo = Slo { 1e9, 0 };
        const auto overridden = compareRuns(file, loose, &error);
        QCOMPARE(overridden[0]["configs"][0]["goodput_req_per_s"].get<double>(), reqPerS);
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
