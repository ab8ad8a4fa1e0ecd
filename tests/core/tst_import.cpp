// Other tools' results read into knobscope's structures (core/import). The
// fixtures in tests/data/import were written from the formats the tools
// document (make_fixtures.py there says how their aggregates were computed).
#include "common/comparisonroundtrip.h"
#include "compare/comparison.h"
#include "import/fieldreader.h"
#include "import/importedrun.h"
#include "import/resultfile.h"
#include "import/vllmexport.h"
#include "import/vllmresult.h"

#include <QFile>
#include <QTest>

#include <numeric>

#include <nlohmann/json.hpp>

using namespace ks;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(KNOBSCOPE_TEST_DATA "/import/") + QLatin1String(name);
}

nlohmann::json readJson(const char* name)
{
    QFile file(fixture(name));
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    const QByteArray bytes = file.readAll();
    return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

RunFile load(const char* name)
{
    RunFile file;
    QString error;
    if (!readAnyRunFile(fixture(name), &file, &error))
        qWarning("%s", qPrintable(error));
    return file;
}

bool issuesMention(const RunFile& file, const char* text)
{
    return std::any_of(file.issues.begin(), file.issues.end(),
        [&](const RunFileIssue& i) { return i.message.contains(QLatin1String(text)); });
}

// Recomputed from microsecond records, a tool's float seconds agree to within rounding.
constexpr double kTolMs = 2e-3;

} // namespace

class TestImport : public QObject {
    Q_OBJECT
private slots:
    void detectsByContent_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("format");
        QTest::newRow("vllm") << QStringLiteral("vllm-detailed.json") << int(ResultFormat::Vllm);
        QTest::newRow("vllm appended") << QStringLiteral("vllm-appended.json") << int(ResultFormat::Vllm);
        QTest::newRow("guidellm") << QStringLiteral("guidellm-benchmarks.json") << int(ResultFormat::GuideLlm);
        QTest::newRow("aiperf summary") << QStringLiteral("aiperf/profile_export_aiperf.json")
                                        << int(ResultFormat::AiperfSummary);
        QTest::newRow("aiperf records") << QStringLiteral("aiperf/profile_export.jsonl")
                                        << int(ResultFormat::AiperfRecords);
        QTest::newRow("unknown") << QStringLiteral("unknown-format.json") << int(ResultFormat::Unknown);
        QTest::newRow("knobscope") << QStringLiteral("../runs/fixture.jsonl") << int(ResultFormat::Knobscope);
    }
    void detectsByContent()
    {
        QFETCH(QString, name);
        QFETCH(int, format);
        QString error;
        const QString path = QStringLiteral(KNOBSCOPE_TEST_DATA "/import/") + name;
        if (format == int(ResultFormat::Knobscope) && !QFile::exists(path))
            QSKIP("no knobscope fixture of that name");
        QCOMPARE(int(detectResultFormat(path, &error)), format);
    }

    void unknownFormatIsAClearError()
    {
        RunFile file;
        QString error;
        QVERIFY(!readAnyRunFile(fixture("unknown-format.json"), &file, &error));
        QVERIFY(error.contains(QLatin1String("not a format knobscope reads")));
        QVERIFY(error.contains(QLatin1String("unknown-format.json")));
    }

    // --save-detailed: full records whose percentiles are vLLM's own (both use numpy's linear rule).
    void vllmDetailedRecomputesTheToolsFigures()
    {
        const RunFile file = load("vllm-detailed.json");
        const nlohmann::json tool = readJson("vllm-detailed.json");
        QCOMPARE(file.runs.size(), std::size_t(1));
        const RunData& run = file.runs[0];
        QVERIFY(!isSummaryOnly(run));
        QCOMPARE(run.requests.size(), std::size_t(8));
        QCOMPARE(run.arm, QStringLiteral("concurrency=4"));
        QCOMPARE(run.config, QStringLiteral("Llama-3.1-8B-Instruct"));
        const nlohmann::json s = importedRunSummary(run, Slo {});
        QCOMPARE(s["ok"].get<int>(), 7);
        QCOMPARE(s["errors"].get<int>(), 1);
        for (const auto& [ours, theirs] : { std::pair { "ttft_ms", "ttft" }, std::pair { "tpot_ms", "tpot" },
                 std::pair { "itl_ms", "itl" }, std::pair { "e2e_ms", "e2el" } }) {
            for (const char* p : { "p50", "p90", "p95", "p99" }) {
                const double want = tool[std::string(p) + "_" + theirs + "_ms"].get<double>();
                QVERIFY2(std::abs(s[ours][p].get<double>() - want) < kTolMs,
                    qPrintable(QStringLiteral("%1 %2: %3 vs %4")
                                   .arg(QLatin1String(ours), QLatin1String(p))
                                   .arg(s[ours][p].get<double>())
                                   .arg(want)));
            }
            QVERIFY(std::abs(s[ours]["mean"].get<double>() - tool[std::string("mean_") + theirs + "_ms"].get<double>())
                < kTolMs);
        }
        // Same throughput definition when start times are there: completed / (last end - first send).
        QVERIFY(std::abs(s["req_per_s"].get<double>() - tool["request_throughput"].get<double>()) < 1e-3);
        QCOMPARE(run.requests[5].error, QStringLiteral("tool_error"));
        QCOMPARE(run.requests[5].errorDetail, QStringLiteral("Internal Server Error"));
    }

    void vllmSummaryOnlyKeepsTheToolsFigures()
    {
        const RunFile file = load("vllm-summary.json");
        QCOMPARE(file.runs.size(), std::size_t(1));
        const RunData& run = file.runs[0];
        QVERIFY(isSummaryOnly(run));
        QCOMPARE(run.config, QStringLiteral("yesterday"));
        QCOMPARE(run.arm, QStringLiteral("rate=8"));
        QCOMPARE(file.experiment["spec"]["name"].get<std::string>(), std::string("vllm-summary"));
        const nlohmann::json s = importedRunSummary(run, Slo {});
        QCOMPARE(s["ttft_ms"]["p50"].get<double>(), 71.5);
        QCOMPARE(s["ttft_ms"]["p99"].get<double>(), 190.4);
        QVERIFY(!s["ttft_ms"].contains("p90")); // vLLM's default writes p99 only: never guessed
        QCOMPARE(s["tpot_ms"]["mean"].get<double>(), 21.3);
        QCOMPARE(s["itl_ms"]["p50"].get<double>(), 19.7);
        QVERIFY(s["e2e_ms"].is_null()); // e2el is not in vLLM's default percentile metrics
        QCOMPARE(s["req_per_s"].get<double>(), 7.795);
        QCOMPARE(s["requests"].get<int>(), 200);
        QCOMPARE(s["imported"]["summary_only"].get<bool>(), true);
        QCOMPARE(QString::fromStdString(s["imported"]["file_sha256"].get<std::string>()).size(), 64);
        QVERIFY(s["warnings"].dump().find("summary-only") != std::string::npos);
    }

    void vllmAppendedIsOneRunPerLine()
    {
        const RunFile file = load("vllm-appended.json");
        QCOMPARE(file.runs.size(), std::size_t(2));
        QCOMPARE(file.runs[0].arm, QStringLiteral("concurrency=4"));
        QCOMPARE(file.runs[1].arm, QStringLiteral("concurrency=16"));
        QCOMPARE(importedRunSummary(file.runs[1], Slo {})["ttft_ms"]["p50"].get<double>(), 120.0);
    }

    // GuideLLM: mapped by definition. inter_token_latency_ms is TPOT; time_per_output_token_ms
    // (which includes TTFT) is not; request_latency is in seconds.
    void guideLlmMapsByDefinition()
    {
        const RunFile file = load("guidellm-benchmarks.json");
        QCOMPARE(file.runs.size(), std::size_t(2));
        QCOMPARE(file.runs[0].arm, QStringLiteral("concurrent@4"));
        QCOMPARE(file.runs[1].arm, QStringLiteral("constant@8"));
        QCOMPARE(file.runs[0].config, QStringLiteral("Qwen3-8B"));
        const nlohmann::json s = importedRunSummary(file.runs[0], Slo {});
        QVERIFY(isSummaryOnly(file.runs[0]));
        QCOMPARE(s["ttft_ms"]["p50"].get<double>(), 48.0);
        QCOMPARE(s["ttft_ms"]["p99"].get<double>(), 95.0);
        QCOMPARE(s["tpot_ms"]["p50"].get<double>(), 14.0); // inter_token_latency_ms, not 14.4
        QCOMPARE(s["tpot_ms"]["mean"].get<double>(), 14.2);
        QVERIFY(std::abs(s["e2e_ms"]["p50"].get<double>() - 1840.0) < 1e-9);
        QVERIFY(s["itl_ms"].is_null()); // GuideLLM keeps no per-gap latencies
        QCOMPARE(s["req_per_s"].get<double>(), 2.1);
        QCOMPARE(s["out_tok_per_s"].get<double>(), 268.0);
        QCOMPARE(s["ok"].get<int>(), 120);
        QCOMPARE(s["errors_by_reason"]["incomplete"].get<int>(), 1);
    }

    void aiperfRecordsRecomputeTheSummary()
    {
        for (const char* name : { "aiperf/profile_export_aiperf.json", "aiperf/profile_export.jsonl" }) {
            const RunFile file = load(name);
            QCOMPARE(file.runs.size(), std::size_t(1));
            const RunData& run = file.runs[0];
            QVERIFY(!isSummaryOnly(run));
            QCOMPARE(run.requests.size(), std::size_t(6));
            QCOMPARE(run.arm, QStringLiteral("concurrency=4"));
            QCOMPARE(run.requests[5].error, ErrorReason::kCancelled);
            const nlohmann::json tool = readJson("aiperf/profile_export_aiperf.json");
            const nlohmann::json s = importedRunSummary(run, Slo {});
            // By definition: inter_token_latency is TPOT, inter_chunk_latency is ITL.
            for (const auto& [ours, theirs] :
                { std::pair { "ttft_ms", "time_to_first_token" }, std::pair { "tpot_ms", "inter_token_latency" },
                    std::pair { "itl_ms", "inter_chunk_latency" }, std::pair { "e2e_ms", "request_latency" } }) {
                for (const char* p : { "p50", "p90", "p95", "p99" })
                    QVERIFY2(std::abs(s[ours][p].get<double>() - tool[theirs][p].get<double>()) < kTolMs,
                        qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(ours), QLatin1String(p))));
                QVERIFY(std::abs(s[ours]["mean"].get<double>() - tool[theirs]["avg"].get<double>()) < kTolMs);
            }
            QCOMPARE(s["errors"].get<int>(), 1);
        }
    }

    void aiperfSummaryAlone()
    {
        const RunFile file = load("aiperf-summary-only/profile_export_aiperf.json");
        QCOMPARE(file.runs.size(), std::size_t(1));
        QVERIFY(isSummaryOnly(file.runs[0]));
        const nlohmann::json s = importedRunSummary(file.runs[0], Slo {});
        const nlohmann::json tool = readJson("aiperf-summary-only/profile_export_aiperf.json");
        QCOMPARE(s["tpot_ms"]["p50"].get<double>(), tool["inter_token_latency"]["p50"].get<double>());
        QCOMPARE(s["imported"]["version"].get<std::string>(), std::string("0.3.0"));
    }

    void malformedFilesGiveNumberedIssues()
    {
        const RunFile vllm = load("vllm-malformed.json");
        QVERIFY(issuesMention(vllm, "completed: expected a number, got a string"));
        QVERIFY(issuesMention(vllm, "ttfts[1]: expected a number, got a string"));
        QVERIFY(issuesMention(vllm, "mean_ttft_ms: expected a number, got an array"));
        QCOMPARE(vllm.runs.size(), std::size_t(1));
        QCOMPARE(vllm.runs[0].requests.size(), std::size_t(7)); // the unreadable request skipped, no others
        QVERIFY(std::all_of(vllm.issues.begin(), vllm.issues.end(), [](const RunFileIssue& i) { return i.line == 1; }));

        const RunFile guide = load("guidellm-malformed.json");
        QVERIFY(issuesMention(
            guide, "benchmarks[0].metrics.time_to_first_token_ms.successful.percentiles.p99: expected a number"));
        QVERIFY(issuesMention(guide, "benchmarks[1].metrics: missing; benchmark skipped"));
        QVERIFY(issuesMention(guide, "benchmarks[2]: expected an object, got an integer; benchmark skipped"));
        QCOMPARE(guide.runs.size(), std::size_t(1));

        const RunFile aiperf = load("aiperf-malformed/profile_export.jsonl");
        std::vector<qint64> lines;
        for (const RunFileIssue& i : aiperf.issues)
            lines.push_back(i.line);
        QVERIFY(issuesMention(aiperf, "metadata.request_start_ns: expected an integer, got a string"));
        QVERIFY(issuesMention(aiperf, "\"parsecs\" is not a time unit"));
        QVERIFY(std::find(lines.begin(), lines.end(), 1) != lines.end());
        QVERIFY(std::find(lines.begin(), lines.end(), 2) != lines.end());
        QVERIFY(std::find(lines.begin(), lines.end(), 3) != lines.end());
        QCOMPARE(aiperf.runs.size(), std::size_t(1));
        QCOMPARE(aiperf.runs[0].requests.size(), std::size_t(1)); // line 4
    }

    // A deeply nested document is refused like the run-file reader refuses it, without recursing.
    void deepNestingIsNotParsed()
    {
        const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        QVERIFY(parseJsonGuarded(deep).is_discarded());
        QVERIFY(!parseJsonGuarded(QByteArrayView("{\"a\": [[1]]}")).is_discarded());
    }

    // Numbers far outside any real run are clamped, never converted with overflow.
    void hugeNumbersAreClamped()
    {
        const nlohmann::json o = { { "request_throughput", 1e300 }, { "completed", 1e300 }, { "failed", -5 },
            { "output_throughput", 1.0 }, { "ttfts", { 1e300, -1.0 } }, { "itls", { { 1e300 }, { 0.5 } } },
            { "output_lens", { 1e300, 3 } }, { "errors", { "", "" } } };
        RunFile file;
        importVllmResult(o, 1, ImportSource { QStringLiteral("vllm"), QStringLiteral("unknown"), {} }, &file);
        QCOMPARE(file.runs.size(), std::size_t(1));
        const RunData& run = file.runs[0];
        QCOMPARE(run.summary.value().ok.value(), qint64(std::numeric_limits<int>::max()));
        QCOMPARE(run.summary.value().errors.value(), qint64(0));
        QCOMPARE(run.requests.size(), std::size_t(2));
        QCOMPARE(run.requests[0].outTokens, std::numeric_limits<int>::max());
        QCOMPARE(run.requests[0].ttftUs, qint64(1e15));
        QCOMPARE(run.requests[0].itlUs[0], std::numeric_limits<std::int32_t>::max());
        QCOMPARE(run.requests[1].ttftUs, qint64(0));
    }

    // Export then import gives the same figures (every latency percentile, throughput, counts).
    void vllmExportRoundTrips()
    {
        RunData run;
        run.run = QStringLiteral("big/stress");
        run.config = QStringLiteral("big");
        run.arm = QStringLiteral("stress");
        run.info = { { "run", "big/stress" }, { "config", "big" }, { "arm", "stress" }, { "model", "sim-8b" } };
        for (int i = 0; i < 40; ++i) {
            RequestRecord r;
            r.run = run.run;
            r.id = i;
            r.tSendUs = r.tSchedUs = i * 12'345;
            r.ok = i % 13 != 5;
            r.status = r.ok ? 200 : 500;
            if (!r.ok) {
                r.error = QStringLiteral("http_500");
                run.requests.push_back(r);
                continue;
            }
            r.ttftUs = 50'000 + (i * 7'919) % 40'000;
            r.outTokens = 3 + i % 5;
            for (int g = 0; g < r.outTokens - 1; ++g)
                r.itlUs.push_back(10'000 + (i * 31 + g * 977) % 9'000);
            r.e2eUs = r.ttftUs + std::accumulate(r.itlUs.begin(), r.itlUs.end(), qint64(0)) + 150;
            r.inTokens = 128;
            run.requests.push_back(r);
        }
        const nlohmann::json original = summarizeRun(run.run, run.config, run.arm, run.requests, Slo {});
        const nlohmann::json exported = toVllmResult(run, nullptr);
        QCOMPARE(exported["completed"].get<int>(), original["ok"].get<int>());
        QCOMPARE(exported["failed"].get<int>(), original["errors"].get<int>());
        QVERIFY(std::abs(exported["p99_ttft_ms"].get<double>() - original["ttft_ms"]["p99"].get<double>()) < 1e-9);
        QVERIFY(std::abs(exported["median_tpot_ms"].get<double>() - original["tpot_ms"]["p50"].get<double>()) < 1e-9);
        QVERIFY(std::abs(exported["request_throughput"].get<double>() - original["req_per_s"].get<double>()) < 1e-9);
        for (const char* key : { "mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
                 "p99_itl_ms", "mean_e2el_ms", "output_throughput", "total_token_throughput", "duration" })
            QVERIFY2(exported.contains(key), key);

        RunFile back;
        importVllmResult(exported, 1, ImportSource { QStringLiteral("vllm"), QStringLiteral("unknown"), {} }, &back);
        QVERIFY(back.issues.empty());
        QCOMPARE(back.runs.size(), std::size_t(1));
        const nlohmann::json again = importedRunSummary(back.runs[0], Slo {});
        for (const char* metric : { "ttft_ms", "tpot_ms", "itl_ms", "e2e_ms" })
            for (const char* stat : { "p50", "p90", "p95", "p99", "max", "mean" })
                QVERIFY2(std::abs(again[metric][stat].get<double>() - original[metric][stat].get<double>()) < 1e-6,
                    qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(metric), QLatin1String(stat))));
        QCOMPARE(again["ok"].get<int>(), original["ok"].get<int>());
        QCOMPARE(again["errors"].get<int>(), original["errors"].get<int>());
        QVERIFY(std::abs(again["req_per_s"].get<double>() - original["req_per_s"].get<double>()) < 1e-9);
        QVERIFY(std::abs(again["out_tok_per_s"].get<double>() - original["out_tok_per_s"].get<double>()) < 1e-9);
    }

    // A summary-only run compares by its bars and ratios, without intervals, and the arm says why.
    void compareShowsSummaryOnlyWithoutIntervals()
    {
        RunFile file = load("vllm-detailed.json");
        RunFile other = load("vllm-summary.json");
        other.runs[0].arm = file.runs[0].arm; // the same arm, yesterday's tool run against today's
        file.runs.push_back(other.runs[0]);
        CompareOptions options;
        options.resamples = 1000;
        QString error;
        const nlohmann::json arms = test::comparedChecked(file, options, &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(arms.size(), std::size_t(1));
        const nlohmann::json& arm = arms[0];
        QVERIFY(arm.contains("note"));
        const nlohmann::json& imported = arm["configs"][1];
        QCOMPARE(imported["summary_only"].get<bool>(), true);
        const double base = arm["configs"][0]["ttft_ms"]["p50"].get<double>();
        QVERIFY(std::abs(imported["ratio"]["ttft_ms"]["p50"].get<double>() - 71.5 / base) < 1e-9);
        QVERIFY(!imported["ratio"]["ttft_ms"].contains("p95")); // vLLM gave no p95
        QVERIFY(imported["ci95"].empty());
        QVERIFY(imported["ratio_ci95"].empty());
        QVERIFY(arm["configs"][0]["ci95"].contains("ttft_ms")); // the run with records keeps its own
    }

    // `compare TODAY.jsonl YESTERDAY.json`: one arm each, named differently, compared as one.
    void twoFilesWithOneArmEachCompare()
    {
        const RunFile today = load("vllm-detailed.json");
        const RunFile yesterday = load("vllm-summary.json");
        const RunFile merged = mergeRunFiles(today, QStringLiteral("today"), yesterday, QStringLiteral("yesterday"));
        QCOMPARE(merged.runs[1].arm, QStringLiteral("concurrency=4"));
        QVERIFY(issuesMention(merged, "compared as \"concurrency=4\""));
        QString error;
        const nlohmann::json arms = test::comparedChecked(merged, CompareOptions {}, &error);
        QCOMPARE(arms.size(), std::size_t(1));
        QCOMPARE(arms[0]["configs"].size(), std::size_t(2));
        QCOMPARE(arms[0]["configs"][1]["config"].get<std::string>(), std::string("yesterday @yesterday"));

        const RunFile twoArms = load("vllm-appended.json"); // two arms: names must match, nothing renamed
        const RunFile kept = mergeRunFiles(today, QStringLiteral("a"), twoArms, QStringLiteral("b"));
        QCOMPARE(kept.runs[1].arm, QStringLiteral("concurrency=4"));
        QCOMPARE(kept.runs[2].arm, QStringLiteral("concurrency=16"));
        QVERIFY(!issuesMention(kept, "compared as"));
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
