#include "sse/sseparser.h"

#include <QTest>

using ks::SseParser;

namespace {

QList<QByteArray> parseAll(const QByteArray& input, QList<qsizetype> cuts, int* comments = nullptr)
{
    SseParser parser;
    QList<QByteArray> events;
    qsizetype from = 0;
    cuts.append(input.size());
    for (qsizetype cut : cuts) {
        parser.feed(input.constData() + from, cut - from, [&](const SseParser::Event& e) { events.append(e.data); });
        from = cut;
    }
    if (comments)
        *comments = parser.comments();
    return events;
}

const QByteArray kStream = "data: {\"text\":\"héllo 東京\"}\n\n: keep-alive\n\ndata: line one\ndata: line two\n\n"
                           "event: message\ndata:no-space\n\nid: 7\nretry: 10\ndata: [DONE]\n\n";
const QList<QByteArray> kExpected = { "{\"text\":\"héllo 東京\"}", "line one\nline two", "no-space", "[DONE]" };

} // namespace

class TestSseParser : public QObject {
    Q_OBJECT
private slots:
    void wholeInput()
    {
        int comments = 0;
        QCOMPARE(parseAll(kStream, {}, &comments), kExpected);
        QCOMPARE(comments, 1);
    }

    void splitAtEveryByteBoundary()
    {
        for (qsizetype cut = 0; cut <= kStream.size(); ++cut)
            QCOMPARE(parseAll(kStream, { cut }), kExpected);
    }

    void splitIntoSingleBytes()
    {
        QList<qsizetype> cuts;
        for (qsizetype i = 1; i < kStream.size(); ++i)
            cuts.append(i);
        QCOMPARE(parseAll(kStream, cuts), kExpected);
    }

    void lineEndings_data()
    {
        QTest::addColumn<QByteArray>("eol");
        QTest::newRow("LF") << QByteArray("\n");
        QTest::newRow("CRLF") << QByteArray("\r\n");
        QTest::newRow("CR") << QByteArray("\r");
    }
    void lineEndings()
    {
        QFETCH(QByteArray, eol);
        QByteArray stream = kStream;
        stream.replace("\n", eol);
        for (qsizetype cut = 0; cut <= stream.size(); ++cut)
            QCOMPARE(parseAll(stream, { cut }), kExpected);
    }

    void unfinishedEventIsNotDispatched()
    {
        SseParser parser;
        int events = 0;
        parser.feed(QByteArray("data: {\"a\":1}\n\ndata: {\"b\""), [&](const SseParser::Event&) { ++events; });
        QCOMPARE(events, 1);
        QVERIFY(parser.hasPartialEvent());
    }

    void oversizedEventIsAnError()
    {
        SseParser parser(64);
        int events = 0;
        const auto status = parser.feed("data: " + QByteArray(100, 'x'), [&](const SseParser::Event&) { ++events; });
        QCOMPARE(status, SseParser::Status::EventTooLarge);
        QCOMPARE(events, 0);
        // Unusable afterwards: no event is dispatched from a broken stream.
        QCOMPARE(parser.feed(QByteArray("\n\ndata: ok\n\n"), [&](const SseParser::Event&) { ++events; }),
            SseParser::Status::EventTooLarge);
        QCOMPARE(events, 0);
    }

    void manyDataLinesStayBounded()
    {
        SseParser parser(1000);
        QByteArray stream;
        for (int i = 0; i < 200; ++i)
            stream += "data: 0123456789\n";
        QCOMPARE(parser.feed(stream, [](const SseParser::Event&) {}), SseParser::Status::EventTooLarge);
    }
};

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
