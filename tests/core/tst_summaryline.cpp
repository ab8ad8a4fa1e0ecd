#include "store/summaryline.h"

#include <QFile>
#include <QTest>

using namespace ks;
using nlohmann::json;

class TestSummaryLine : public QObject {
    Q_OBJECT

    /// The first summary line of a run file in tests/data/runs, as written.
    static std::string firstSummaryLine(const char* file)
    {
        QFile f(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/") + QLatin1String(file));
        if (!f.open(QIODevice::ReadOnly))
            return {};
        while (!f.atEnd()) {
            const QByteArray line = f.readLine().trimmed();
            if (line.contains("\"type\":\"summary\""))
                return line.toStdString();
        }
        return {};
    }

private slots:
    void roundTripOfAStoredLineIsExact()
    {
        const std::string text = firstSummaryLine("fixture.jsonl");
        QVERIFY(!text.empty());
        json line = json::parse(text);
        // A field a newer version writes, at the top and inside a distribution.
        line["queue_model"] = { { "kind", "mm1" }, { "rho", 0.75 } };
        line["ttft_ms"]["p999"] = 1200.1;
        const RunSummary s = runSummaryFromJson(line);
        QCOMPARE(runSummaryToJson(s).dump(), line.dump());
        QCOMPARE(QByteArray::fromStdString(runSummaryToJson(s).dump()).size(), qsizetype(line.dump().size()));
        // Unknown keys are kept in `rest`, not named.
        QVERIFY(s.rest.contains("queue_model"));
        QVERIFY(s.rest.contains("type"));
        QVERIFY(s.ttftMs && s.ttftMs->rest.contains("p999"));
        QVERIFY(!s.rest.contains("ttft_ms"));

        // Named fields say what the JSON says.
        QCOMPARE(*s.run, QString::fromStdString(line["run"].get<std::string>()));
        QCOMPARE(*s.config, QString::fromStdString(line["config"].get<std::string>()));
        QCOMPARE(*s.arm, QString::fromStdString(line["arm"].get<std::string>()));
        QCOMPARE(*s.status, QString::fromStdString(line["status"].get<std::string>()));
        QCOMPARE(*s.requests, line["requests"].get<qint64>());
        QCOMPARE(*s.ok, line["ok"].get<qint64>());
        QCOMPARE(*s.errors, line["errors"].get<qint64>());
        QCOMPARE(*s.reqPerS, line["req_per_s"].get<double>());
        QCOMPARE(*s.outTokPerS, line["out_tok_per_s"].get<double>());
        QCOMPARE(*s.goodputReqPerS, line["goodput_req_per_s"].get<double>());
        QCOMPARE(*s.gentle, line["gentle"].get<bool>());
        QCOMPARE(s.warnings->size(), qsizetype(line["warnings"].size()));
        const std::pair<const std::optional<SummaryDistribution>*, const char*> distributions[]
            = { { &s.ttftMs, "ttft_ms" }, { &s.tpotMs, "tpot_ms" }, { &s.itlMs, "itl_ms" }, { &s.e2eMs, "e2e_ms" } };
        for (const auto& [d, key] : distributions) {
            QVERIFY2(d->has_value(), key);
            const json& j = line[key];
            QCOMPARE(*(*d)->count, j["count"].get<qint64>());
            QCOMPARE(*(*d)->p50, j["p50"].get<double>());
            QCOMPARE(*(*d)->p90, j["p90"].get<double>());
            QCOMPARE(*(*d)->p99, j["p99"].get<double>());
            QCOMPARE(*(*d)->mean, j["mean"].get<double>());
            QCOMPARE(*(*d)->max, j["max"].get<double>());
        }
        QCOMPARE(RunSummary::p50Of(s.ttftMs), line["ttft_ms"]["p50"].get<double>());
        QCOMPARE(s.clientBound(), line["client"]["client_bound"].get<bool>());
        QCOMPARE(s.driftMismatches(), -1); // a load arm: no drift object
    }

    void everyStoredSummaryRoundTrips_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("fixture") << QStringLiteral("fixture.jsonl");
        QTest::newRow("reasoning-tools") << QStringLiteral("reasoning-tools.jsonl");
    }

    void everyStoredSummaryRoundTrips()
    {
        QFETCH(QString, file);
        QFile f(QStringLiteral(KNOBSCOPE_TEST_DATA "/runs/") + file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        int summaries = 0;
        while (!f.atEnd()) {
            const QByteArray text = f.readLine().trimmed();
            if (!text.contains("\"type\":\"summary\""))
                continue;
            const json line = json::parse(text.toStdString());
            QCOMPARE(runSummaryToJson(runSummaryFromJson(line)).dump(), line.dump());
            ++summaries;
        }
        QVERIFY(summaries > 0);
    }

    void wrongTypedFieldsStayAsWritten()
    {
        // An integer rate, a numeric status and a mixed warnings list are not what
        // the named fields hold: they stay in `rest` and come back unchanged.
        const json line = { { "req_per_s", 3 }, { "status", 7 }, { "warnings", { "a", 1 } },
            { "ttft_ms", { { "p50", "fast" }, { "count", 2 } } }, { "requests", -1 } };
        const RunSummary s = runSummaryFromJson(line);
        QVERIFY(!s.reqPerS);
        QVERIFY(!s.status);
        QCOMPARE(s.statusText(), QStringLiteral("completed"));
        QVERIFY(!s.warnings);
        QVERIFY(s.ttftMs && !s.ttftMs->p50);
        QCOMPARE(*s.ttftMs->count, qint64(2));
        QCOMPARE(RunSummary::p50Of(s.ttftMs), -1.0);
        QCOMPARE(*s.requests, qint64(-1));
        QCOMPARE(runSummaryToJson(s).dump(), line.dump());
        QCOMPARE(runSummaryToJson(runSummaryFromJson(json())).dump(), json::object().dump());
    }
};

QTEST_GUILESS_MAIN(TestSummaryLine)
#include "tst_summaryline.moc"
