// Each dialect fixture (tests/data/sse, written from the servers' documented
// formats) through the same accumulator a live stream uses, split at every byte.
#include "client/streamaccumulator.h"

#include <QFile>
#include <QTest>

using namespace ks;

namespace {

QByteArray fixture(const QString& name)
{
    QFile file(QStringLiteral(KNOBSCOPE_TEST_DATA "/sse/") + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Feeds the stream in two reads split at `cut`; each read gets its own timestamp
// (the first at 1000 µs after send, the second at 5000 µs).
RequestRecord run(const QByteArray& stream, qsizetype cut, ApiKind api, QByteArray* content = nullptr)
{
    RequestRecord seed;
    seed.tSendUs = 0;
    StreamAccumulator acc(api, seed);
    acc.keepText(true);
    acc.onStatus(200);
    acc.onBytes(stream.left(cut), 1000);
    acc.onBytes(stream.mid(cut), 5000);
    RequestRecord record = acc.finish(6000);
    if (content)
        *content = record.outputText;
    return record;
}

} // namespace

class TestChunkDecoder : public QObject {
    Q_OBJECT
private slots:
    void dialects_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("api");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("error");
        QTest::addColumn<int>("outTokens");
        QTest::addColumn<bool>("fromUsage");
        QTest::addColumn<int>("tokenEvents");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("ttfcAfterTtft");
        const int chat = int(ApiKind::Chat);
        const int completions = int(ApiKind::Completions);
        QTest::newRow("vllm chat") << "vllm_chat.sse" << chat << true << QString() << 4 << true << 3
                                   << QByteArray("Hello wörld 東京!") << false;
        QTest::newRow("llama.cpp") << "llamacpp_chat.sse" << chat << true << QString() << 3 << true << 2
                                   << QByteArray("Hi there") << false;
        QTest::newRow("ollama reasoning")
            << "ollama_chat.sse" << chat << true << QString() << 3 << false << 3 << QByteArray("42") << true;
        QTest::newRow("sglang") << "sglang_chat.sse" << chat << true << QString() << 3 << true << 2 << QByteArray("Yes")
                                << true;
        QTest::newRow("tgi") << "tgi_chat.sse" << chat << true << QString() << 2 << true << 2
                             << QByteArray("Deep learning") << false;
        QTest::newRow("openai tool calls")
            << "openai_tools.sse" << chat << true << QString() << 8 << true << 2 << QByteArray() << false;
        QTest::newRow("error mid-stream")
            << "vllm_completions_error.sse" << completions << false << QStringLiteral("error_event") << 2 << false << 2
            << QByteArray(" The end") << false;
    }
    void dialects()
    {
        QFETCH(QString, file);
        QFETCH(int, api);
        QFETCH(bool, ok);
        QFETCH(QString, error);
        QFETCH(int, outTokens);
        QFETCH(bool, fromUsage);
        QFETCH(int, tokenEvents);
        QFETCH(QByteArray, content);
        QFETCH(bool, ttfcAfterTtft);
        const QByteArray stream = fixture(file);
        QVERIFY(!stream.isEmpty());
        for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
            QByteArray text;
            const RequestRecord r = run(stream, cut, ApiKind(api), &text);
            QCOMPARE(r.ok, ok);
            QCOMPARE(r.error, error);
            QCOMPARE(r.outTokens, outTokens);
            QCOMPARE(r.outTokensFromUsage, fromUsage);
            QCOMPARE(int(r.itlUs.size()) + (r.ttftUs >= 0 ? 1 : 0), tokenEvents);
            QCOMPARE(text, content);
            QVERIFY(r.ttftUs == 1000 || r.ttftUs == 5000);
            if (!content.isEmpty() && !ttfcAfterTtft && r.ttftUs >= 0)
                QCOMPARE(r.ttfcUs, r.ttftUs);
        }
    }

    void roleOnlyChunkIsNotTheFirstToken()
    {
        const QByteArray stream = fixture(QStringLiteral("vllm_chat.sse"));
        // The role chunk arrives alone at 1000 µs; the first token comes later.
        const qsizetype firstTokenAt = stream.indexOf("data: ", 10);
        const RequestRecord r = run(stream, firstTokenAt, ApiKind::Chat);
        QCOMPARE(r.ttftUs, qint64(5000));
    }

    void reasoningCountsForTtftButNotTtfc()
    {
        const QByteArray stream = fixture(QStringLiteral("ollama_chat.sse"));
        const qsizetype contentAt = stream.indexOf("\"content\":\"42\"");
        const qsizetype eventStart = stream.lastIndexOf("data: ", contentAt);
        const RequestRecord r = run(stream, eventStart, ApiKind::Chat);
        QCOMPARE(r.ttftUs, qint64(1000));
        QCOMPARE(r.ttfcUs, qint64(5000));
    }

    void streamCutShortIsIncomplete()
    {
        const QByteArray stream = fixture(QStringLiteral("vllm_chat.sse"));
        RequestRecord seed;
        StreamAccumulator acc(ApiKind::Chat, seed);
        acc.onStatus(200);
        acc.onBytes(stream.left(stream.indexOf("finish_reason\":\"length") - 100), 1000);
        const RequestRecord r = acc.finish(2000);
        QVERIFY(!r.ok);
        QCOMPARE(r.error, ErrorReason::kIncomplete);
    }

    // vLLM's client fails a stream that never carried a token; so does knobscope.
    void emptyStreamIsNoTokens_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<int>("api");
        QTest::newRow("only [DONE]") << QByteArray("data: [DONE]\n\n") << int(ApiKind::Completions);
        QTest::newRow("role chunk, usage, [DONE]") << QByteArray(
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
            "data: {\"choices\":[],\"usage\":{\"completion_tokens\":0}}\n\n"
            "data: [DONE]\n\n") << int(ApiKind::Chat);
        QTest::newRow("empty text with finish_reason")
            << QByteArray("data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"stop\"}]}\n\n")
            << int(ApiKind::Completions);
    }
    void emptyStreamIsNoTokens()
    {
        QFETCH(QByteArray, stream);
        QFETCH(int, api);
        RequestRecord seed;
        StreamAccumulator acc(ApiKind(api), seed);
        acc.onStatus(200);
        acc.onBytes(stream, 10);
        const RequestRecord r = acc.finish(20);
        QVERIFY(!r.ok);
        QCOMPARE(r.error, ErrorReason::kNoTokens);
        QCOMPARE(r.outTokens, 0);
    }

    void undecodableEventIsAnError()
    {
        RequestRecord seed;
        StreamAccumulator acc(ApiKind::Completions, seed);
        acc.onStatus(200);
        acc.onBytes(QByteArray("data: {\"choices\":[{\"text\":\n\ndata: [DONE]\n\n"), 10);
        const RequestRecord r = acc.finish(20);
        QCOMPARE(r.error, ErrorReason::kUndecodable);
    }

    void decodesEdgeCases_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("api");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("hasToken");
        QTest::addColumn<QString>("message");
        const int chat = int(ApiKind::Chat);
        const int completions = int(ApiKind::Completions);
        const int chunk = int(ChunkInfo::Kind::Chunk);
        const int error = int(ChunkInfo::Kind::Error);
        const int bad = int(ChunkInfo::Kind::Undecodable);
        QTest::newRow("error as a string")
            << QByteArray(R"({"error":"boom"})") << chat << error << false << QStringLiteral("boom");
        QTest::newRow("error object") << QByteArray(R"({"error":{"message":"oom","code":500}})") << chat << error
                                      << false << QStringLiteral("oom");
        QTest::newRow("null error is no error") << QByteArray(R"({"error":null,"choices":[{"delta":{"content":"x"}}]})")
                                                << chat << chunk << true << QString();
        QTest::newRow("top-level array") << QByteArray(R"([{"choices":[]}])") << chat << bad << false << QString();
        QTest::newRow("truncated") << QByteArray(R"({"choices":[{"text":)") << completions << bad << false << QString();
        QTest::newRow("empty tool_calls")
            << QByteArray(R"({"choices":[{"delta":{"tool_calls":[]}}]})") << chat << chunk << false << QString();
        QTest::newRow("second choice ignored")
            << QByteArray(R"({"choices":[{"text":""},{"text":"late"}]})") << completions << chunk << false << QString();
        QTest::newRow("content key in completions is not text")
            << QByteArray(R"({"choices":[{"delta":{"content":"x"}}]})") << completions << chunk << false << QString();
        // A tool_calls array closes; a later value at the same depth (here inside
        // logprobs.content) must not count as a tool-call element.
        QTest::newRow("tool_calls state ends with its array")
            << QByteArray(R"({"choices":[{"delta":{"tool_calls":[]},"logprobs":{"content":[{"token":"x"}]}}]})") << chat
            << chunk << false << QString();
        QTest::newRow("tool_calls element is a token") << QByteArray(
            "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"x\"}}]}}]}")
                                                       << chat << chunk << true << QString();
        QTest::newRow("nested text is not text") << QByteArray(R"({"choices":[{"logprobs":{"text":"x"},"text":""}]})")
                                                 << completions << chunk << false << QString();
    }
    void decodesEdgeCases()
    {
        QFETCH(QByteArray, payload);
        QFETCH(int, api);
        QFETCH(int, kind);
        QFETCH(bool, hasToken);
        QFETCH(QString, message);
        const ChunkInfo info = decodeChunk(payload, ApiKind(api));
        QCOMPARE(int(info.kind), kind);
        QCOMPARE(info.hasToken, hasToken);
        if (!message.isEmpty())
            QCOMPARE(info.errorMessage, message);
    }

    // llama-server's final chunk carries the server's own prefill and
    // generation times; the record keeps them wherever the stream is cut.
    void llamaCppTimingsReachTheRecord()
    {
        const QByteArray stream = fixture(QStringLiteral("llamacpp_timings.sse"));
        QVERIFY(!stream.isEmpty());
        const ServerTimings expected { 62.703, 102.018, 335, 20, 128 };
        for (qsizetype cut = 0; cut <= stream.size(); ++cut) {
            RequestRecord seed;
            seed.tSendUs = 700;
            StreamAccumulator acc(ApiKind::Chat, seed);
            acc.onHeaders(200, 950);
            acc.onBytes(stream.left(cut), 1000);
            acc.onBytes(stream.mid(cut), 5000);
            const RequestRecord r = acc.finish(6000);
            QVERIFY(r.ok);
            QCOMPARE(r.status, 200);
            QCOMPARE(r.tHeadersUs, qint64(950)); // the run clock, like t_send_us: not a difference
            QCOMPARE(r.outTokens, 20);
            QCOMPARE(r.server, expected);
        }
    }

    void withoutTimingsTheRecordHasNone()
    {
        const RequestRecord r = run(fixture(QStringLiteral("vllm_chat.sse")), 0, ApiKind::Chat);
        QVERIFY(r.ok);
        QVERIFY(!r.server.any());
        QCOMPARE(r.tHeadersUs, qint64(-1)); // onStatus() alone says nothing about when
    }

    void decodesTimings_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<double>("promptMs");
        QTest::addColumn<double>("predictedMs");
        QTest::addColumn<int>("promptN");
        QTest::addColumn<int>("predictedN");
        QTest::addColumn<int>("cacheN");
        QTest::newRow("integral milliseconds")
            << QByteArray(R"({"timings":{"prompt_ms":12,"predicted_ms":0}})") << 12.0 << 0.0 << -1 << -1 << -1;
        QTest::newRow("exponent") << QByteArray(R"({"timings":{"prompt_ms":1.25e2,"prompt_n":7}})") << 125.0 << -1.0
                                  << 7 << -1 << -1;
        QTest::newRow("fractional count is no count")
            << QByteArray(R"({"timings":{"prompt_n":1.5,"cache_n":3}})") << -1.0 << -1.0 << -1 << -1 << 3;
        QTest::newRow("wrong types ignored")
            << QByteArray(R"({"timings":{"prompt_ms":"12","predicted_ms":null,"predicted_n":true,"cache_n":[1]}})")
            << -1.0 << -1.0 << -1 << -1 << -1;
        QTest::newRow("negative ignored")
            << QByteArray(R"({"timings":{"prompt_ms":-1,"predicted_n":-4}})") << -1.0 << -1.0 << -1 << -1 << -1;
        QTest::newRow("timings array ignored")
            << QByteArray(R"({"timings":[{"prompt_ms":5}]})") << -1.0 << -1.0 << -1 << -1 << -1;
        QTest::newRow("nested timings are not the server's")
            << QByteArray(R"({"x":{"timings":{"prompt_ms":5}},"choices":[{"timings":{"prompt_n":3}}]})") << -1.0 << -1.0
            << -1 << -1 << -1;
        QTest::newRow("deeper keys ignored")
            << QByteArray(R"({"timings":{"draft":{"prompt_ms":5},"predicted_n":9}})") << -1.0 << -1.0 << -1 << 9 << -1;
        QTest::newRow("count past int ignored")
            << QByteArray(R"({"timings":{"prompt_n":99999999999,"predicted_n":18446744073709551615}})") << -1.0 << -1.0
            << -1 << -1 << -1;
    }
    void decodesTimings()
    {
        QFETCH(QByteArray, payload);
        QFETCH(double, promptMs);
        QFETCH(double, predictedMs);
        QFETCH(int, promptN);
        QFETCH(int, predictedN);
        QFETCH(int, cacheN);
        const ChunkInfo info = decodeChunk(payload, ApiKind::Chat);
        QCOMPARE(int(info.kind), int(ChunkInfo::Kind::Chunk));
        QCOMPARE(info.timings.promptMs, promptMs);
        QCOMPARE(info.timings.predictedMs, predictedMs);
        QCOMPARE(info.timings.promptN, promptN);
        QCOMPARE(info.timings.predictedN, predictedN);
        QCOMPARE(info.timings.cacheN, cacheN);
    }

    void httpErrorKeepsTheBody()
    {
        RequestRecord seed;
        StreamAccumulator acc(ApiKind::Completions, seed);
        acc.onStatus(429);
        acc.onBytes(QByteArray("{\"error\":{\"message\":\"slow down\"}}"), 10);
        const RequestRecord r = acc.finish(20);
        QCOMPARE(r.error, QStringLiteral("http_429"));
        QVERIFY(r.errorDetail.contains(QStringLiteral("slow down")));
        QCOMPARE(r.ttftUs, qint64(-1));
    }

    // Tool-call deltas: events and distinct calls counted apart (by index, else
    // by id); the usage's reasoning_tokens wins over the reasoning events.
    void countsReasoningAndToolCalls()
    {
        const QByteArray stream
            = "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n"
              "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"
              "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\","
              "\"type\":\"function\",\"function\":{\"name\":\"f\"}},{\"index\":1,\"id\":\"b\","
              "\"function\":{\"name\":\"g\"}}]}}]}\n\n"
              "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
              "\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
              "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c\","
              "\"function\":{\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n";
        const QByteArray usage = "data: {\"choices\":[],\"usage\":{\"completion_tokens\":9,"
                                 "\"completion_tokens_details\":{\"reasoning_tokens\":4}}}\n\ndata: [DONE]\n\n";
        for (const bool withUsage : { false, true }) {
            const QByteArray all = stream + (withUsage ? usage : QByteArray("data: [DONE]\n\n"));
            for (qsizetype cut = 0; cut <= all.size(); cut += 7) {
                const RequestRecord r = run(all, cut, ApiKind::Chat);
                QVERIFY(r.ok);
                QCOMPARE(r.toolCallEvents, 3);
                QCOMPARE(r.toolCalls, 3); // indices 0 and 1, and id "c" without an index
                QCOMPARE(r.answerTokens, 1);
                QCOMPARE(r.reasoningTokens, withUsage ? 4 : 1);
                QCOMPARE(r.reasoningTokensFromUsage, withUsage);
                QCOMPARE(r.itlGapsBeforeTools(), qsizetype(1));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestChunkDecoder)
#include "tst_chunkdecoder.moc"
