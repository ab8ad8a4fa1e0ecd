// Workloads (shared prefixes, multi-turn sessions, prompt files) against the real
// knobscope-sim process, checked against what the server itself logged.
#include "../sim/simprocess.h"
#include "load/loadrunner.h"
#include "truthlog.h"
#include "workload/workload.h"

#include <QCryptographicHash>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <map>
#include <memory>

using namespace ks;

namespace {

std::vector<RequestRecord> runLoad(const LoadSpec& spec)
{
    std::vector<RequestRecord> records;
    LoadRunner runner(spec);
    QObject::connect(&runner, &LoadRunner::recordsReady,
        [&](const QVector<RequestRecord>& batch) { records.insert(records.end(), batch.begin(), batch.end()); });
    QSignalSpy finished(&runner, &LoadRunner::finished);
    const QString error = runner.start();
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    else if (finished.isEmpty())
        finished.wait(120000);
    return records;
}

LoadSpec specFor(quint16 port, int concurrency, int requests)
{
    LoadSpec spec;
    spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    spec.model = QStringLiteral("sim-8b");
    spec.concurrency = concurrency;
    spec.requests = requests;
    spec.maxTokens = 8;
    spec.inputTokens = 24;
    spec.runLabel = QStringLiteral("w");
    return spec;
}

// The truth log's lines in arrival order, with the request index from X-Request-Id.
struct Truth {
    qint64 id = -1;
    qint64 arrivalUs = 0;
    int cachedTokens = 0;
    int promptTokens = 0;
    std::string prompt;
};

std::vector<Truth> readTruth(const QString& path)
{
    std::vector<Truth> out;
    for (const kssim::TruthRecord& r : kssim::readTruthLog(path))
        if (!r.clientRequestId.isEmpty())
            out.push_back(
                { kssim::requestIndexOf(r), r.arrivalUs, r.cachedTokens, r.promptTokens, r.prompt.toStdString() });
    std::sort(out.begin(), out.end(), [](const Truth& a, const Truth& b) { return a.arrivalUs < b.arrivalUs; });
    return out;
}

std::map<qint64, Truth> truthById(const std::vector<Truth>& truth)
{
    std::map<qint64, Truth> out;
    for (const Truth& t : truth)
        out[t.id] = t;
    return out;
}

QByteArray metricsOf(quint16 port)
{
    QNetworkAccessManager nam;
    QNetworkReply* reply = nam.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port))));
    QSignalSpy done(reply, &QNetworkReply::finished);
    done.wait(10000);
    const QByteArray body = reply->readAll();
    delete reply;
    return body;
}

double metricValue(const QByteArray& body, const QByteArray& name)
{
    for (const QByteArray& line : body.split('\n')) {
        if (line.startsWith(name + '{') || line.startsWith(name + ' '))
            return line.mid(line.lastIndexOf(' ') + 1).toDouble();
    }
    return -1;
}

QString words(const std::string& text, int count)
{
    return QString::fromStdString(text)
        .split(QRegularExpression(QStringLiteral("\\s+")))
        .mid(0, count)
        .join(QLatin1Char(' '));
}

} // namespace

class TestWorkloads : public QObject {
    Q_OBJECT

    std::unique_ptr<SimProcess> startSim(const QString& truthPath, const QStringList& extra = {})
    {
        auto sim = std::make_unique<SimProcess>();
        QString error;
        if (!sim->start(
                QStringList { QStringLiteral("--truth-log"), truthPath, QStringLiteral("--truth-log-prompts") } + extra,
                &error)) {
            qWarning("knobscope-sim did not start: %s", qPrintable(error));
            return nullptr;
        }
        return sim;
    }

private slots:
    void initTestCase() { qRegisterMetaType<LoadResult>(); }

    // Which prompts shared a prefix, as the records say (`prefix`) and as the
    // server saw it (its prompt text and the tokens its prefix cache served),
    // and the /metrics hit counter equal to the truth log's sum.
    void sharedPrefixesHitThePrefixCache()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim(truthPath);
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 1, 12);
        spec.prompts.prefixes = 3;
        spec.prompts.prefixTokens = 200; // 12 full blocks of 16 and 8 tokens over
        const std::vector<RequestRecord> records = runLoad(spec);
        QCOMPARE(records.size(), std::size_t(12));
        const QByteArray metrics = metricsOf(sim->port());
        QCOMPARE(sim->terminate(), 0);
        const std::map<qint64, Truth> truth = truthById(readTruth(truthPath));
        QCOMPARE(truth.size(), std::size_t(12));

        std::map<int, qint64> firstOfPrefix;
        std::map<int, QString> prefixText;
        double cachedSum = 0;
        for (const RequestRecord& r : records) {
            QVERIFY(r.ok);
            QVERIFY(r.prefix >= 0 && r.prefix < 3);
            const Truth& t = truth.at(r.id);
            QCOMPARE(t.promptTokens, r.inTokens); // 200 prefix words + 24 prompt words, one token each
            const QString head = words(t.prompt, 200);
            if (!prefixText.count(r.prefix))
                prefixText[r.prefix] = head;
            QCOMPARE(head, prefixText[r.prefix]); // the same prefix, word for word
            if (!firstOfPrefix.count(r.prefix) || r.id < firstOfPrefix[r.prefix])
                firstOfPrefix[r.prefix] = r.id;
            cachedSum += t.cachedTokens;
        }
        QCOMPARE(prefixText.size(), std::size_t(3)); // 12 draws over 3 prefixes (seed 1) used them all
        QVERIFY(prefixText[0] != prefixText[1] && prefixText[1] != prefixText[2]);
        for (const RequestRecord& r : records) {
            // The first prompt of a prefix fills the cache; every later one reads the
            // prefix's full blocks from it, and no more (the prompts differ right after).
            const int expected = r.id == firstOfPrefix[r.prefix] ? 0 : 200 / 16 * 16;
            QCOMPARE(truth.at(r.id).cachedTokens, expected);
        }
        QCOMPARE(metricValue(metrics, "vllm:prefix_cache_hits_total"), cachedSum);
        QVERIFY(metricValue(metrics, "vllm:prefix_cache_queries_total") >= 12 * 224);
    }

    void distinctPromptsNeverHitIt()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim(truthPath);
        QVERIFY(sim);
        const std::vector<RequestRecord> records = runLoad(specFor(sim->port(), 2, 10));
        QCOMPARE(records.size(), std::size_t(10));
        QCOMPARE(sim->terminate(), 0);
        for (const Truth& t : readTruth(truthPath))
            QCOMPARE(t.cachedTokens, 0);
        for (const RequestRecord& r : records)
            QCOMPARE(r.prefix, -1);
    }

    // Each session's prompts grow turn by turn, and turn t+1 carries the reply the
    // server actually streamed for turn t (its SHA-256 is in turn t's record).
    void multiTurnSessionsCarryTheServersReplies()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim(truthPath);
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 2, 12);
        spec.api = ApiKind::Chat;
        spec.prompts.turns = 3;
        spec.prompts.prefixes = 1;
        spec.prompts.prefixTokens = 64;
        const std::vector<RequestRecord> records = runLoad(spec);
        QCOMPARE(records.size(), std::size_t(12));
        QCOMPARE(sim->terminate(), 0);
        const std::map<qint64, Truth> truth = truthById(readTruth(truthPath));

        std::map<qint64, std::map<int, const RequestRecord*>> sessions;
        for (const RequestRecord& r : records) {
            QVERIFY(r.ok);
            QVERIFY(r.session >= 0);
            sessions[r.session][r.turn] = &r;
        }
        QCOMPARE(sessions.size(), std::size_t(4)); // 12 requests, 3 turns each
        for (const auto& [session, turns] : sessions) {
            QCOMPARE(turns.size(), std::size_t(3));
            nlohmann::json previous;
            for (const auto& [turn, record] : turns) {
                const auto messages = nlohmann::json::parse(truth.at(record->id).prompt, nullptr, false);
                QVERIFY(messages.is_array());
                // system prompt, then user/assistant pairs, then this turn's user message
                QCOMPARE(messages.size(), std::size_t(2 + 2 * turn));
                QCOMPARE(messages.back()["role"].get<std::string>(), std::string("user"));
                if (turn > 0) {
                    for (std::size_t i = 0; i < previous.size(); ++i)
                        QVERIFY(messages[i] == previous[i]); // the history is kept as sent
                    const nlohmann::json& reply = messages[messages.size() - 2];
                    QCOMPARE(reply["role"].get<std::string>(), std::string("assistant"));
                    const QByteArray sha = QCryptographicHash::hash(
                        QByteArray::fromStdString(reply["content"].get<std::string>()), QCryptographicHash::Sha256)
                                               .toHex();
                    QCOMPARE(sha, turns.at(turn - 1)->outputSha256.toHex());
                    QVERIFY(truth.at(record->id).promptTokens > truth.at(turns.at(turn - 1)->id).promptTokens);
                    // The history the server cached on the previous turn is read back, not recomputed.
                    QVERIFY(truth.at(record->id).cachedTokens >= truth.at(turns.at(turn - 1)->id).promptTokens - 16);
                }
                previous = messages;
            }
        }
    }

    // A ShareGPT file sent as single requests: the server receives the file's
    // prompts in the file's order (system text, then the first human turn).
    void aPromptFileIsSentInOrder()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        const QString dataPath = dir.filePath(QStringLiteral("conversations.jsonl"));
        std::vector<std::string> expected;
        {
            QFile data(dataPath);
            QVERIFY(data.open(QIODevice::WriteOnly));
            for (int i = 0; i < 5; ++i) {
                const std::string human = "question number " + std::to_string(i) + " about rivers and stones";
                nlohmann::json conversations = nlohmann::json::array();
                if (i % 2 == 0)
                    conversations.push_back({ { "from", "system" }, { "value", "be brief " + std::to_string(i) } });
                conversations.push_back({ { "from", "human" }, { "value", human } });
                conversations.push_back({ { "from", "gpt" }, { "value", "a recorded answer" } });
                conversations.push_back({ { "from", "human" }, { "value", "and a follow-up" } });
                data.write(QByteArray::fromStdString(
                    nlohmann::json({ { "id", i }, { "conversations", conversations } }).dump() + "\n"));
                expected.push_back(i % 2 == 0 ? "be brief " + std::to_string(i) + "\n" + human : human);
            }
        }
        auto sim = startSim(truthPath);
        QVERIFY(sim);
        LoadSpec spec = specFor(sim->port(), 1, 7);
        spec.prompts.source = PromptSpec::Source::File;
        spec.prompts.format = PromptDataset::Format::ShareGpt;
        spec.prompts.path = dataPath;
        auto loaded = loadPromptDataset(dataPath, PromptDataset::Format::ShareGpt);
        QVERIFY(std::holds_alternative<PromptDataset>(loaded));
        spec.prompts.dataset = std::make_shared<const PromptDataset>(std::get<PromptDataset>(loaded));
        const std::vector<RequestRecord> records = runLoad(spec);
        QCOMPARE(records.size(), std::size_t(7));
        QCOMPARE(sim->terminate(), 0);
        const std::vector<Truth> truth = readTruth(truthPath);
        QCOMPARE(truth.size(), std::size_t(7));
        for (std::size_t i = 0; i < truth.size(); ++i) {
            QCOMPARE(truth[i].id, qint64(i)); // one stream: arrival order is request order
            QCOMPARE(QString::fromStdString(truth[i].prompt),
                QString::fromStdString(expected[i % expected.size()])); // then the file again from its start
        }
        for (const RequestRecord& r : records)
            QCOMPARE(r.inTokens, truthById(truth).at(r.id).promptTokens); // unknown to the client: the usage's
    }
};

QTEST_GUILESS_MAIN(TestWorkloads)
#include "tst_workloads.moc"
