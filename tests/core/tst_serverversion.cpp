// The server-version probe against in-process fake servers answering as
// vLLM, llama.cpp, SGLang and Ollama document it, and as servers that have no
// version endpoint, answer garbage, refuse connections or never answer; and
// against knobscope-sim itself.
#include "common/freeport.h"
#include "server/serverversion.h"
#include "sim/simprocess.h"

#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <algorithm>

using namespace ks;
using json = nlohmann::json;

namespace {

QByteArray http(int status, const QByteArray& body)
{
    return "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

// Answers GET <path> with the response set for it, after its delay; an empty
// response leaves the request hanging, a path not set gets 404.
class FakeServer : public QObject {
public:
    struct Answer {
        QByteArray response;
        int delayMs = 0;
    };

    FakeServer()
    {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        });
    }
    void set(const QByteArray& path, const QByteArray& response, int delayMs = 0)
    {
        m_answers[path] = { response, delayMs };
    }
    QUrl url(const QString& path = QStringLiteral("/v1")) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }
    QList<QByteArray> paths; ///< in the order they were asked for

private:
    void onReadyRead(QTcpSocket* socket)
    {
        QByteArray& buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (qsizetype end; (end = buffer.indexOf("\r\n\r\n")) >= 0;) {
            const QByteArray path = buffer.left(buffer.indexOf("\r\n")).split(' ').value(1);
            buffer.remove(0, end + 4);
            paths << path;
            const Answer answer = m_answers.value(path, { http(404, R"({"detail":"Not Found"})"), 0 });
            if (answer.response.isEmpty())
                continue;
            QTimer::singleShot(
                answer.delayMs, socket, [socket, response = answer.response] { socket->write(response); });
        }
    }

    QTcpServer m_server;
    QHash<QByteArray, Answer> m_answers;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

// The probe's requests that have not ended (its replies live under its QNetworkAccessManager).
int requestsInFlight(const ServerVersionProbe& probe)
{
    const QList<QNetworkReply*> replies = probe.findChildren<QNetworkReply*>();
    return int(std::count_if(replies.begin(), replies.end(), [](const QNetworkReply* r) { return !r->isFinished(); }));
}

// Probes `url` and returns what finished() said, checking it said it once: a second finished()
// (a bug) could only come from a request still open when it was said, so every request must
// end first, except the `hanging` ones the server never answers.
json probeOnce(ServerVersionProbe& probe, const QUrl& url, int hanging = 0)
{
    QSignalSpy finished(&probe, &ServerVersionProbe::finished);
    probe.probe(url);
    if (!finished.wait(30000))
        return json { { "test", "no finished() within 30 s" } };
    if (!QTest::qWaitFor([&probe, hanging] { return requestsInFlight(probe) <= hanging; }, 30000))
        return json { { "test", "the probe's other requests did not end within 30 s" } };
    if (finished.count() != 1)
        return json { { "test", "finished() more than once" } };
    return finished.first().first().value<json>();
}

std::string text(const json& info, const char* key)
{
    return info.value(key, std::string());
}

// llama.cpp's documented /props, with a long chat template as real models have.
QByteArray llamaCppProps()
{
    json props = { { "default_generation_settings",
                       { { "id", 0 }, { "n_ctx", 8192 }, { "params", { { "temperature", 0.8 }, { "top_k", 40 } } } } },
        { "total_slots", 4 }, { "model_path", "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf" },
        { "model_alias", "llama-3.1-8b" }, { "chat_template", std::string(50000, 't') },
        { "modalities", { { "vision", false } } }, { "build_info", "b4567-1a2b3c4d" }, { "is_sleeping", false } };
    return QByteArray::fromStdString(props.dump());
}

} // namespace

class TestServerVersion : public QObject {
    Q_OBJECT
private slots:
    void serverRootStripsV1_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("root");
        QTest::newRow("/v1") << QStringLiteral("http://h:8000/v1") << QStringLiteral("http://h:8000");
        QTest::newRow("/v1/") << QStringLiteral("http://h:8000/v1/") << QStringLiteral("http://h:8000");
        QTest::newRow("bare") << QStringLiteral("http://h:8000") << QStringLiteral("http://h:8000");
        QTest::newRow("behind a prefix") << QStringLiteral("https://gw/team/v1") << QStringLiteral("https://gw/team");
        QTest::newRow("query dropped") << QStringLiteral("http://h/v1?x=1") << QStringLiteral("http://h");
    }
    void serverRootStripsV1()
    {
        QFETCH(QString, base);
        QFETCH(QString, root);
        QCOMPARE(ServerVersionProbe::serverRoot(QUrl(base)).toString(), root);
    }

    void vllmVersion()
    {
        FakeServer server;
        server.set("/version", http(200, R"({"version":"0.6.3"})"));
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url());
        QCOMPARE(text(info, "engine"), std::string("vllm"));
        QCOMPARE(text(info, "version"), std::string("0.6.3"));
        QCOMPARE(text(info, "endpoint"), std::string("/version"));
        QCOMPARE(info["details"].dump(), std::string("{}"));
        QCOMPARE(serverVersionText(info), QStringLiteral("vLLM 0.6.3 (/version)"));
        // All four at the server root, not under /v1.
        QList<QByteArray> asked = server.paths;
        std::sort(asked.begin(), asked.end());
        QCOMPARE(asked, (QList<QByteArray> { "/api/version", "/get_server_info", "/props", "/version" }));
        QVERIFY(!probe.isRunning());
    }

    // /props is large (the chat template): only its small fields are kept.
    void llamaCppProps()
    {
        FakeServer server;
        server.set("/props", http(200, ::llamaCppProps()));
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url());
        QCOMPARE(text(info, "engine"), std::string("llama.cpp"));
        QCOMPARE(text(info, "version"), std::string("b4567-1a2b3c4d"));
        QCOMPARE(text(info, "endpoint"), std::string("/props"));
        const json expected = { { "model_path", "../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf" },
            { "model_alias", "llama-3.1-8b" }, { "total_slots", 4 }, { "n_ctx", 8192 } };
        QCOMPARE(info["details"].dump(), expected.dump());
        QVERIFY(info.dump().size() < 1000);
        QCOMPARE(serverVersionText(info), QStringLiteral("llama.cpp b4567-1a2b3c4d (/props)"));
    }

    void sglangServerInfo()
    {
        FakeServer server;
        const json answer = { { "model_path", "Qwen/Qwen2.5-7B-Instruct" }, { "tp_size", 2 }, { "dp_size", 1 },
            { "max_running_requests", nullptr }, { "context_length", nullptr }, { "max_total_num_tokens", 612345 },
            { "internal_states", { { { "attention_backend", "fa3" }, { "avg_spec_accept_length", 0 } } } },
            { "version", "0.4.6.post1" } };
        server.set("/get_server_info", http(200, QByteArray::fromStdString(answer.dump())));
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url());
        QCOMPARE(text(info, "engine"), std::string("sglang"));
        QCOMPARE(text(info, "version"), std::string("0.4.6.post1"));
        // Nulls and the per-rank internal states are not small facts.
        const json expected = { { "model_path", "Qwen/Qwen2.5-7B-Instruct" }, { "tp_size", 2 }, { "dp_size", 1 },
            { "max_total_num_tokens", 612345 } };
        QCOMPARE(info["details"].dump(), expected.dump());
        QCOMPARE(serverVersionText(info), QStringLiteral("SGLang 0.4.6.post1 (/get_server_info)"));
    }

    void ollamaVersion()
    {
        FakeServer server;
        server.set("/api/version", http(200, R"({"version":"0.12.6"})"));
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url(QString()));
        QCOMPARE(text(info, "engine"), std::string("ollama"));
        QCOMPARE(text(info, "version"), std::string("0.12.6"));
        QCOMPARE(serverVersionText(info), QStringLiteral("Ollama 0.12.6 (/api/version)"));
    }

    void anEngineFieldNamesTheEngine()
    {
        FakeServer server;
        server.set("/version", http(200, R"({"version":"0.9.0","engine":"knobscope-sim"})"));
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url());
        QCOMPARE(text(info, "engine"), std::string("knobscope-sim"));
        QCOMPARE(serverVersionText(info), QStringLiteral("knobscope-sim 0.9.0 (/version)"));
    }

    // /version answers at once and /props later: the engine-specific answer
    // is preferred whichever comes first.
    void theMoreSpecificEndpointWins()
    {
        FakeServer server;
        server.set("/version", http(200, R"({"version":"1.0"})"));
        server.set("/props", http(200, ::llamaCppProps()), 300);
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url());
        QCOMPARE(text(info, "engine"), std::string("llama.cpp"));
    }

    void stringsAreCapped()
    {
        const json answer = { { "version", std::string(500, 'v') }, { "model_path", std::string(300, 'p') } };
        const json info = serverVersionFromAnswer(QStringLiteral("/get_server_info"), answer);
        QCOMPARE(text(info, "version").size(), std::size_t(200));
        QCOMPARE(info["details"]["model_path"].get<std::string>().size(), std::size_t(200));
        QVERIFY(serverVersionFromAnswer(QStringLiteral("/version"), json::array()).is_null());
        QVERIFY(serverVersionFromAnswer(QStringLiteral("/version"), { { "version", 3 } }).is_null());
        QVERIFY(serverVersionFromAnswer(QStringLiteral("/props"), { { "version", "1" } }).is_null());
    }

    void noEndpointIsAnError()
    {
        FakeServer server;
        ServerVersionProbe probe;
        const json info = probeOnce(probe, server.url());
        QCOMPARE(text(info, "error"),
            std::string(
                "no version endpoint answered (/props 404, /get_server_info 404, /api/version 404, /version 404)"));
        QVERIFY(!info.contains("version"));
        QVERIFY(serverVersionText(info).startsWith(QStringLiteral("server version unknown: ")));
    }

    void garbageIsNotAVersion()
    {
        FakeServer server;
        server.set("/version", http(200, "{\"version\": \"0.6"));
        server.set("/api/version", http(200, R"({"status":"ok"})"));
        server.set("/get_server_info", http(500, "Internal Server Error"));
        server.set("/props", http(200, "{\"build_info\":\"" + QByteArray(3 << 20, 'x') + "\"}"));
        ServerVersionProbe probe;
        const std::string error = text(probeOnce(probe, server.url()), "error");
        QVERIFY2(error.find("/props answer over 2 MiB") != std::string::npos, error.c_str());
        QVERIFY2(error.find("/get_server_info 500") != std::string::npos, error.c_str());
        QVERIFY2(error.find("/api/version no version in the answer") != std::string::npos, error.c_str());
        QVERIFY2(error.find("/version not JSON") != std::string::npos, error.c_str());
    }

    void aClosedPortIsRefused()
    {
        ServerVersionProbe probe;
        const std::string error
            = text(probeOnce(probe, QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(freePort()))), "error");
        QVERIFY2(error.find("/props connection refused") != std::string::npos, error.c_str());
        QVERIFY2(error.find("/version connection refused") != std::string::npos, error.c_str());
    }

    void aServerThatNeverAnswersTimesOut()
    {
        FakeServer server;
        for (const char* path : ServerVersionProbe::kPaths)
            server.set(path, QByteArray());
        ServerVersionProbe probe;
        probe.setTimeoutMs(300);
        const std::string error = text(probeOnce(probe, server.url()), "error");
        QVERIFY2(error.find("/props no answer within 300 ms") != std::string::npos, error.c_str());
        QVERIFY2(error.find("/version no answer within 300 ms") != std::string::npos, error.c_str());
    }

    // One endpoint hangs while the preferred one answers: no need to wait for it.
    void aHangingLessPreferredEndpointIsNotWaitedFor()
    {
        FakeServer server;
        server.set("/props", http(200, ::llamaCppProps()));
        server.set("/version", QByteArray());
        ServerVersionProbe probe;
        probe.setTimeoutMs(60000);
        QCOMPARE(text(probeOnce(probe, server.url(), 1), "engine"), std::string("llama.cpp"));
    }

    // The real simulator answers /version with its own name.
    void findsKnobscopeSim()
    {
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start({}, &error), qPrintable(error));
        ServerVersionProbe probe;
        const json info = probeOnce(probe, QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(sim.port())));
        QCOMPARE(serverVersionText(info), QStringLiteral("knobscope-sim " KNOBSCOPE_VERSION " (/version)"));
        QCOMPARE(sim.terminate(), 0);
    }

    void anAbortedProbeSaysNothing()
    {
        FakeServer server;
        server.set("/version", http(200, R"({"version":"0.6.3"})"), 200);
        ServerVersionProbe probe;
        QSignalSpy finished(&probe, &ServerVersionProbe::finished);
        probe.probe(server.url());
        QVERIFY(probe.isRunning());
        probe.abort();
        QVERIFY(!probe.isRunning());
        // Every request of the aborted probe ends (the answer to /version arrives 200 ms in):
        // had the abort left one connected, finished() would have come with it.
        QTRY_COMPARE_WITH_TIMEOUT(requestsInFlight(probe), 0, 30000);
        QCOMPARE(finished.count(), 0);
        // and can probe again
        QCOMPARE(text(probeOnce(probe, server.url()), "version"), std::string("0.6.3"));
    }
};

QTEST_GUILESS_MAIN(TestServerVersion)
#include "tst_serverversion.moc"
