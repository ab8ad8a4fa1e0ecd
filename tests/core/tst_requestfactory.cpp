#include "client/requestfactory.h"

#include <QMap>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace ks;

namespace {
LoadSpec spec(ApiKind api, const char* baseUrl)
{
    LoadSpec s;
    s.api = api;
    s.baseUrl = QUrl(QString::fromLatin1(baseUrl));
    s.model = QStringLiteral("m");
    s.maxTokens = 77;
    s.inputTokens = 12;
    s.runLabel = QStringLiteral("cfg/stress");
    return s;
}
} // namespace

class TestRequestFactory : public QObject {
    Q_OBJECT
private slots:
    void urls_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<int>("api");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bare host") << "http://h:8000" << int(ApiKind::Completions) << "http://h:8000/v1/completions";
        QTest::newRow("trailing slash") << "http://h:8000/" << int(ApiKind::Chat)
                                        << "http://h:8000/v1/chat/completions";
        QTest::newRow("already /v1") << "https://h/v1" << int(ApiKind::Chat) << "https://h/v1/chat/completions";
        QTest::newRow("path prefix") << "http://h/proxy/" << int(ApiKind::Completions)
                                     << "http://h/proxy/v1/completions";
    }
    void urls()
    {
        QFETCH(QString, base);
        QFETCH(int, api);
        QFETCH(QString, expected);
        const RequestFactory f(spec(ApiKind(api), base.toLatin1().constData()), {});
        QCOMPARE(f.url().toString(), expected);
        QVERIFY(f.modelsUrl().toString().endsWith(QLatin1String("/v1/models")));
    }

    // --stall-timeout 1e7 (seconds) once overflowed an int of milliseconds and
    // turned the stall guard off (or made it fire at once).
    void hugeStallTimeoutStaysOnAndPositive()
    {
        LoadSpec s = spec(ApiKind::Completions, "http://h");
        s.stallTimeoutS = 1e7;
        QCOMPARE(RequestFactory(s, {}).stallTimeoutUs(), qint64(1e13));
        s.stallTimeoutS = 1e300;
        QVERIFY(RequestFactory(s, {}).stallTimeoutUs() > qint64(1e13));
        s.stallTimeoutS = 2.5;
        QCOMPARE(RequestFactory(s, {}).stallTimeoutUs(), 2500000);
    }

    void bodyAsksForAStreamWithUsage()
    {
        const RequestFactory f(spec(ApiKind::Completions, "http://h"), {});
        const QByteArray body = f.body(5);
        const auto j = nlohmann::json::parse(body.begin(), body.end());
        QCOMPARE(j["model"].get<std::string>(), std::string("m"));
        QCOMPARE(j["max_tokens"].get<int>(), 77);
        QVERIFY(j["stream"].get<bool>());
        QVERIFY(j["ignore_eos"].get<bool>());
        QVERIFY(j["stream_options"]["include_usage"].get<bool>());
        QCOMPARE(j["temperature"].get<double>(), 0.0);
        const QString prompt = QString::fromStdString(j["prompt"].get<std::string>());
        QCOMPARE(prompt.split(QLatin1Char(' ')).size(), 12);
        QVERIFY(prompt.startsWith(QLatin1String("r5 ")));
        QVERIFY(f.body(6) != body); // distinct prompts: no shared cached prefix

        const RequestFactory chat(spec(ApiKind::Chat, "http://h"), {});
        const QByteArray chatBody = chat.body(1);
        const auto c = nlohmann::json::parse(chatBody.begin(), chatBody.end());
        QCOMPARE(c["messages"][0]["role"].get<std::string>(), std::string("user"));
        QVERIFY(!c.contains("prompt"));
    }

    // The request as it goes on the wire: one head, the body, nothing else.
    static QMap<QByteArray, QByteArray> headersOf(const QByteArray& request, QByteArray* requestLine, QByteArray* body)
    {
        const qsizetype end = request.indexOf("\r\n\r\n");
        QList<QByteArray> lines = request.left(end).split('\n');
        *requestLine = lines.takeFirst().trimmed();
        QMap<QByteArray, QByteArray> out;
        for (const QByteArray& line : lines) {
            const qsizetype colon = line.indexOf(':');
            out.insert(line.left(colon).toLower(), line.mid(colon + 1).trimmed());
        }
        *body = request.mid(end + 4);
        return out;
    }

    void headers()
    {
        const RequestFactory withKey(spec(ApiKind::Chat, "http://h:8123/base"), "sk-test\n");
        const QByteArray body = withKey.body(9);
        QByteArray line;
        QByteArray sent;
        const auto h = headersOf(withKey.httpRequest(9, body), &line, &sent);
        QCOMPARE(line, QByteArray("POST /base/v1/chat/completions HTTP/1.1"));
        QCOMPARE(h.value("host"), QByteArray("h:8123"));
        QCOMPARE(h.value("accept-encoding"), QByteArray("identity"));
        QCOMPARE(h.value("accept"), QByteArray("text/event-stream"));
        QCOMPARE(h.value("content-type"), QByteArray("application/json"));
        QCOMPARE(h.value("authorization"), QByteArray("Bearer sk-test")); // the file's newline is not sent
        QCOMPARE(h.value("x-request-id"), QByteArray("cfg/stress/9"));
        QCOMPARE(h.value("content-length").toLongLong(), body.size());
        QVERIFY(h.value("user-agent").startsWith("knobscope/"));
        QCOMPARE(sent, body);
        const RequestFactory noKey(spec(ApiKind::Chat, "http://h"), {});
        const auto plain = headersOf(noKey.httpRequest(0, noKey.body(0)), &line, &sent);
        QVERIFY(!plain.contains("authorization"));
        QCOMPARE(plain.value("host"), QByteArray("h"));
        const auto models = headersOf(noKey.modelsRequest(), &line, &sent);
        QCOMPARE(line, QByteArray("GET /v1/models HTTP/1.1"));
        QVERIFY(sent.isEmpty());
    }

    // A label with a line break must not end the header line and start another.
    void labelCannotInjectAHeader()
    {
        LoadSpec s = spec(ApiKind::Completions, "http://h");
        s.runLabel = QStringLiteral("a\r\nX-Evil: 1");
        const RequestFactory f(s, {});
        QByteArray line;
        QByteArray sent;
        const auto h = headersOf(f.httpRequest(3, f.body(3)), &line, &sent);
        QVERIFY(!h.contains("x-evil"));
        QCOMPARE(h.value("x-request-id"), QByteArray("a__X-Evil: 1/3"));
    }
};

QTEST_GUILESS_MAIN(TestRequestFactory)
#include "tst_requestfactory.moc"
