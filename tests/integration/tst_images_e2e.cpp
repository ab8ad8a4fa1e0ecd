// Images end to end: a chat arm sends two synthetic images a request to
// knobscope-sim; each request line's image count and bytes equal what the
// simulator decoded, and its prompt tokens are the text's plus the image tokens
// of the simulator's documented rule, computed here by hand.
#include "../sim/simprocess.h"
#include "common/recordroundtrip.h"
#include "load/loadrunner.h"
#include "metrics/runsummary.h"
#include "truthlog.h"
#include "workload/promptspec.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace ks;

class TestImagesE2e : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qRegisterMetaType<LoadResult>(); }

    void imagesAreSentCountedAndCharged()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({ QStringLiteral("--truth-log"), truthPath }, &error), qPrintable(error));

        LoadSpec spec;
        spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(sim.port()));
        spec.api = ApiKind::Chat;
        spec.model = QStringLiteral("sim-8b");
        spec.concurrency = 2;
        spec.requests = 6;
        spec.maxTokens = 4;
        spec.inputTokens = 16;
        spec.runLabel = QStringLiteral("img");
        std::vector<std::pair<QString, QString>> errors;
        const auto prompts = parsePromptSpec(
            { { "input_tokens", 16 }, { "images", { { "count", 2 }, { "width", 64 }, { "height", 48 } } } },
            QStringLiteral("prompts"), errors);
        QVERIFY(prompts);
        spec.prompts = *prompts;

        std::vector<RequestRecord> records;
        LoadRunner runner(spec);
        connect(&runner, &LoadRunner::recordsReady,
            [&](const QVector<RequestRecord>& batch) { records.insert(records.end(), batch.begin(), batch.end()); });
        QSignalSpy finished(&runner, &LoadRunner::finished);
        QVERIFY(runner.start().isEmpty());
        QVERIFY(!finished.isEmpty() || finished.wait(60000));
        sim.terminate();

        std::map<qint64, kssim::TruthRecord> truth;
        for (const kssim::TruthRecord& t : kssim::readTruthLog(truthPath))
            truth[kssim::requestIndexOf(t)] = t;
        // 64×48 rounds to 2×2 patches of 28 (3136 pixels, exactly min_pixels): 4 tokens
        // and the two vision markers, 6 an image. Text: 16 words and 4 template tokens.
        const int imageTokens = 2 * 6;
        QCOMPARE(records.size(), std::size_t(6));
        for (const RequestRecord& r : records) {
            QVERIFY2(r.ok, qPrintable(r.error + QLatin1String(": ") + r.errorDetail));
            QVERIFY(truth.count(r.id));
            const kssim::TruthRecord& t = truth.at(r.id);
            QCOMPARE(r.images, 2);
            QCOMPARE(t.images, 2);
            QCOMPARE(t.imageTokens, imageTokens);
            QCOMPARE(t.promptTokens, 16 + 4 + imageTokens);
            QCOMPARE(r.inTokens, t.promptTokens); // from the usage
            QVERIFY(r.imageBytes > 0);
            QCOMPARE(r.imageBytes, t.imageBytes);

            const std::optional<RequestRecord> read = roundTrip(r);
            QVERIFY(read);
            const RequestRecord& back = *read;
            QCOMPARE(back.images, r.images);
            QCOMPARE(back.imageBytes, r.imageBytes);
        }
        const nlohmann::json summary = summarizeRun(QStringLiteral("img"), {}, {}, records, {});
        QCOMPARE(summary["images"]["total"].get<int>(), 12);
        QCOMPARE(summary["images"]["per_request_p50"].get<double>(), 2.0);
    }
};

QTEST_GUILESS_MAIN(TestImagesE2e)
#include "tst_images_e2e.moc"
