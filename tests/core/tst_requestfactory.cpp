#include "client/requestfactory.h"

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
        QCOMPARE(f.networkRequest(0).url().toString(), expected);
        QVERIFY(f.modelsUrl().toString().endsWith(QLatin1String("/v1/models")));
    }

    // --stall-timeout 1e7 (seconds) once overflowed an int of milliseconds and
    // turned the stall guard off (or made it fire at once).
    void hugeStallTimeoutStaysOnAndPositive()
    {
        LoadSpec s = spec(ApiKind::Completions, "http://h");
        s.stallTimeoutS = 1e7;
        const RequestFactory f(s, {});
        QVERIFY(f.networkRequest(0).transferTimeout() > 0);
        QCOMPARE(f.networkRequest(0).transferTimeout(), std::numeric_limits<int>::max());
        s.stallTimeoutS = 2.5;
        QCOMPARE(RequestFactory(s, {}).networkRequest(0).transferTimeout(), 2500);
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

    void headers()
    {
        const RequestFactory withKey(spec(ApiKind::Chat, "http://h"), "sk-test");
        const QNetworkRequest r = withKey.networkRequest(9);
        QCOMPARE(r.rawHeader("Accept-Encoding"), QByteArray("identity"));
        QCOMPARE(r.rawHeader("Authorization"), QByteArray("Bearer sk-test"));
        QCOMPARE(r.rawHeader("X-Request-Id"), QByteArray("cfg/stress/9"));
        QVERIFY(r.rawHeader("User-Agent").startsWith("knobscope/"));
        QCOMPARE(r.attribute(QNetworkRequest::Http2AllowedAttribute).toBool(), false);
        const RequestFactory noKey(spec(ApiKind::Chat, "http://h"), {});
        QVERIFY(!noKey.networkRequest(0).hasRawHeader("Authorization"));
    }
};

QTEST_GUILESS_MAIN(TestRequestFactory)
#include "tst_requestfactory.moc"
