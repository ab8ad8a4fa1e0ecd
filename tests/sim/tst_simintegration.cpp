// knobscope-sim as a real process, over real sockets, read by an independent client.
#include "rawhttpclient.h"
#include "simprocess.h"

#include "telemetry/prometheustext.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <numeric>

namespace {

QJsonObject parseObject(const QByteArray& json)
{
    QJsonParseError error {};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    return error.error == QJsonParseError::NoError ? doc.object() : QJsonObject {};
}

bool isValidJson(const QByteArray& json)
{
    QJsonParseError error {};
    QJsonDocument::fromJson(json, &error);
    return error.error == QJsonParseError::NoError;
}

double metricValue(const QByteArray& metrics, const QByteArray& nameWithLabels)
{
    for (const QByteArray& line : metrics.split('\n')) {
        if (line.startsWith(nameWithLabels + ' '))
            return line.mid(nameWithLabels.size() + 1).toDouble();
    }
    return -1;
}

QList<QJsonObject> readJsonl(const QString& path)
{
    QFile file(path);
    QList<QJsonObject> out;
    if (!file.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (!line.isEmpty())
            out.append(parseObject(line));
    }
    return out;
}

QByteArray completionJson(int maxTokens, bool stream = true, const QByteArray& prompt = "Tell me about batching")
{
    return R"({"model":"sim-8b","prompt":")" + prompt + R"(","max_tokens":)" + QByteArray::number(maxTokens)
        + R"(,"ignore_eos":true,"temperature":0,"stream":)" + (stream ? "true" : "false") + "}";
}

// Token-carrying events among SSE payloads (text or content or reasoning_content non-empty).
int tokenEvents(const QList<QByteArray>& data)
{
    int n = 0;
    for (const QByteArray& d : data) {
        const QJsonObject o = parseObject(d);
        const QJsonArray choices = o.value(QStringLiteral("choices")).toArray();
        if (choices.isEmpty())
            continue;
        const QJsonObject c = choices.first().toObject();
        const QJsonObject delta = c.value(QStringLiteral("delta")).toObject();
        if (!c.value(QStringLiteral("text")).toString().isEmpty()
            || !delta.value(QStringLiteral("content")).toString().isEmpty()
            || !delta.value(QStringLiteral("reasoning_content")).toString().isEmpty())
            ++n;
    }
    return n;
}

} // namespace

class TestSimIntegration : public QObject {
    Q_OBJECT

    std::unique_ptr<SimProcess> startSim(const QStringList& args)
    {
        auto sim = std::make_unique<SimProcess>();
        QString error;
        if (!sim->start(args, &error))
            qWarning("knobscope-sim did not start: %s", qPrintable(error));
        return sim->port() ? std::move(sim) : nullptr;
    }

private slots:
    void streamsChatLikeVllm()
    {
        auto sim = startSim({ QStringLiteral("--profile"), QStringLiteral("sim-reasoning") });
        QVERIFY(sim);
        const QByteArray body
            = R"({"model":"sim-reasoning","messages":[{"role":"user","content":"two plus two"}],)"
              R"("max_tokens":10,"ignore_eos":true,"temperature":0,"stream":true,"stream_options":{"include_usage":true}})";
        const auto responses = exchange(sim->port(), postRequest("/v1/chat/completions", body));
        QCOMPARE(responses.size(), 1);
        const RawResponse& r = responses.first();
        QCOMPARE(r.status, 200);
        QVERIFY(r.complete);
        QVERIFY(r.header("content-type").startsWith("text/event-stream"));
        const SseStream sse = splitSse(r.body);
        QVERIFY(sse.trailing.isEmpty());
        // role chunk, 10 token chunks, usage chunk, [DONE]
        QCOMPARE(sse.data.size(), 13);
        const QJsonObject role = parseObject(sse.data[0]).value(QStringLiteral("choices")).toArray()[0].toObject();
        QCOMPARE(role.value(QStringLiteral("delta")).toObject().value(QStringLiteral("role")).toString(),
            QStringLiteral("assistant"));
        QCOMPARE(role.value(QStringLiteral("delta")).toObject().value(QStringLiteral("content")).toString(), QString());
        QCOMPARE(tokenEvents(sse.data), 10);
        // 40 % reasoning (4 tokens) first, then content.
        for (int i = 1; i <= 10; ++i) {
            const QJsonObject delta = parseObject(sse.data[i])
                                          .value(QStringLiteral("choices"))
                                          .toArray()[0]
                                          .toObject()
                                          .value(QStringLiteral("delta"))
                                          .toObject();
            QCOMPARE(delta.contains(QStringLiteral("reasoning_content")), i <= 4);
            QCOMPARE(delta.contains(QStringLiteral("content")), i > 4);
        }
        const QJsonObject last = parseObject(sse.data[10]).value(QStringLiteral("choices")).toArray()[0].toObject();
        QCOMPARE(last.value(QStringLiteral("finish_reason")).toString(), QStringLiteral("length"));
        const QJsonObject usageChunk = parseObject(sse.data[11]);
        QVERIFY(usageChunk.value(QStringLiteral("choices")).toArray().isEmpty());
        const QJsonObject usage = usageChunk.value(QStringLiteral("usage")).toObject();
        QCOMPARE(usage.value(QStringLiteral("completion_tokens")).toInt(), 10);
        QCOMPARE(usage.value(QStringLiteral("prompt_tokens")).toInt(), 4 + 3); // one message: template + 3 words
        QCOMPARE(usage.value(QStringLiteral("total_tokens")).toInt(), 17);
        QCOMPARE(sse.data[12], QByteArray("[DONE]"));
        QCOMPARE(sim->terminate(), 0);
    }

    void streamsCompletionsWithoutUsageUnlessAsked()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        const auto r = exchange(sim->port(), postRequest("/v1/completions", completionJson(7))).value(0);
        const SseStream sse = splitSse(r.body);
        QCOMPARE(sse.data.size(), 8);
        QCOMPARE(tokenEvents(sse.data), 7);
        QCOMPARE(
            parseObject(sse.data[0]).value(QStringLiteral("object")).toString(), QStringLiteral("text_completion"));
        QCOMPARE(parseObject(sse.data[6])
                     .value(QStringLiteral("choices"))
                     .toArray()[0]
                     .toObject()
                     .value(QStringLiteral("finish_reason"))
                     .toString(),
            QStringLiteral("length"));
        QCOMPARE(sse.data.last(), QByteArray("[DONE]"));
    }

    void answersWithoutStreamingAndStaysDeterministic()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        const auto a = exchange(sim->port(), postRequest("/v1/completions", completionJson(12, false))).value(0);
        const auto b = exchange(sim->port(), postRequest("/v1/completions", completionJson(12, false))).value(0);
        QCOMPARE(a.status, 200);
        const QJsonObject body = parseObject(a.body);
        const QString text
            = body.value(QStringLiteral("choices")).toArray()[0].toObject().value(QStringLiteral("text")).toString();
        QCOMPARE(text.split(QLatin1Char(' '), Qt::SkipEmptyParts).size(), 12);
        QCOMPARE(body.value(QStringLiteral("usage")).toObject().value(QStringLiteral("completion_tokens")).toInt(), 12);
        QCOMPARE(parseObject(b.body)
                     .value(QStringLiteral("choices"))
                     .toArray()[0]
                     .toObject()
                     .value(QStringLiteral("text"))
                     .toString(),
            text);
    }

    void rejectsBadRequestsAndKeepsServing()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        const quint16 port = sim->port();
        const auto unknownModel
            = exchange(port, postRequest("/v1/completions", R"({"model":"gpt-4","prompt":"x"})")).value(0);
        QCOMPARE(unknownModel.status, 404);
        QCOMPARE(parseObject(unknownModel.body)
                     .value(QStringLiteral("error"))
                     .toObject()
                     .value(QStringLiteral("param"))
                     .toString(),
            QStringLiteral("model"));
        QCOMPARE(exchange(port, postRequest("/v1/completions", "{not json")).value(0).status, 400);
        QCOMPARE(exchange(port, postRequest("/v1/completions", R"({"model":"sim-8b","prompt":"x","max_tokens":-3})"))
                     .value(0)
                     .status,
            400);
        QCOMPARE(exchange(port, "BROKEN\r\n\r\n").value(0).status, 400);
        // A body nested 100,000 deep overflowed the simulator's stack in dump().
        const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
        QCOMPARE(exchange(port,
                     postRequest("/v1/chat/completions",
                         R"({"model":"sim-8b","messages":[{"role":"user","content":)" + deep + "}]}"))
                     .value(0)
                     .status,
            400);
        QCOMPARE(exchange(port, postRequest("/v1/completions", R"({"model":"sim-8b","prompt":[1,)" + deep + "]}"))
                     .value(0)
                     .status,
            400);
        QCOMPARE(exchange(port, "GET / HTTP/1.1\r\nX: " + QByteArray(20000, 'a') + "\r\n\r\n").value(0).status, 431);
        QCOMPARE(
            exchange(port, "POST /v1/completions HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n").value(0).status, 413);
        QCOMPARE(exchange(port, getRequest("/v2/nothing")).value(0).status, 404);
        QCOMPARE(exchange(port, getRequest("/v1/completions")).value(0).status, 405);
        // Everyone else is still served.
        QCOMPARE(exchange(port, getRequest("/health")).value(0).status, 200);
        const auto models = parseObject(exchange(port, getRequest("/v1/models")).value(0).body);
        QCOMPARE(models.value(QStringLiteral("data")).toArray()[0].toObject().value(QStringLiteral("id")).toString(),
            QStringLiteral("sim-8b"));
    }

    // Where vLLM says its version, so a probe of the server's version finds the simulator's.
    void answersItsVersion()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        const RawResponse version = exchange(sim->port(), getRequest("/version")).value(0);
        QCOMPARE(version.status, 200);
        QVERIFY(version.header("content-type").startsWith("application/json"));
        const QJsonObject body = parseObject(version.body);
        QCOMPARE(body.value(QStringLiteral("version")).toString(), QStringLiteral(KNOBSCOPE_VERSION));
        QCOMPARE(body.value(QStringLiteral("engine")).toString(), QStringLiteral("knobscope-sim"));
        QCOMPARE(exchange(sim->port(), postRequest("/version", "{}")).value(0).status, 405);
        QCOMPARE(sim->terminate(), 0);
    }

    void servesSeveralRequestsOnOneKeepAliveConnection()
    {
        auto sim = startSim({});
        QVERIFY(sim);
        const QByteArray pipeline = postRequest("/v1/completions", completionJson(3), true)
            + getRequest("/health", true) + postRequest("/v1/completions", completionJson(2, false));
        const auto responses = exchange(sim->port(), pipeline);
        QCOMPARE(responses.size(), 3);
        QCOMPARE(tokenEvents(splitSse(responses[0].body).data), 3);
        QCOMPARE(responses[1].status, 200);
        QCOMPARE(parseObject(responses[2].body)
                     .value(QStringLiteral("usage"))
                     .toObject()
                     .value(QStringLiteral("completion_tokens"))
                     .toInt(),
            2);
    }

    // 64 clients at once: all 64 connections open together, all run in one batch.
    void streamsAreTrulyConcurrent()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim({ QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        std::vector<std::unique_ptr<RawHttpClient>> clients;
        for (int i = 0; i < 64; ++i) {
            clients.push_back(std::make_unique<RawHttpClient>());
            clients.back()->start(sim->port(),
                postRequest("/v1/completions", completionJson(48, true, "prompt " + QByteArray::number(i)), false,
                    "X-Request-Id: client-" + QByteArray::number(i) + "\r\n"));
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(clients.begin(), clients.end(), [](const auto& c) { return c->isDone(); }), 60000);
        for (const auto& c : clients)
            QCOMPARE(tokenEvents(splitSse(c->responses().value(0).body).data), 48);
        const QByteArray metrics = exchange(sim->port(), getRequest("/metrics")).value(0).body;
        QCOMPARE(metricValue(metrics, "knobscope_sim_open_connections_peak"), 64.0);
        QCOMPARE(
            metricValue(metrics, R"(vllm:request_success_total{finished_reason="length",model_name="sim-8b"})"), 64.0);
        QCOMPARE(sim->terminate(), 0);

        const QList<QJsonObject> truth = readJsonl(truthPath);
        QCOMPARE(truth.size(), 64);
        // All 64 were decoding at one instant: the latest admission precedes the earliest end.
        qint64 latestAdmission = 0;
        qint64 earliestEnd = std::numeric_limits<qint64>::max();
        QSet<QString> clientIds;
        for (const QJsonObject& t : truth) {
            latestAdmission = std::max(latestAdmission, qint64(t.value(QStringLiteral("admitted_us")).toDouble()));
            earliestEnd = std::min(earliestEnd, qint64(t.value(QStringLiteral("end_us")).toDouble()));
            QCOMPARE(t.value(QStringLiteral("tokens_written")).toInt(), 48);
            QCOMPARE(t.value(QStringLiteral("token_us")).toArray().size(), 48);
            clientIds.insert(t.value(QStringLiteral("client_request_id")).toString());
        }
        QVERIFY(latestAdmission < earliestEnd);
        QCOMPARE(clientIds.size(), 64);
    }

    void queuesBeyondMaxNumSeqs()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim(
            { QStringLiteral("--max-num-seqs"), QStringLiteral("2"), QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        std::vector<std::unique_ptr<RawHttpClient>> clients;
        for (int i = 0; i < 4; ++i) {
            clients.push_back(std::make_unique<RawHttpClient>());
            clients.back()->start(
                sim->port(), postRequest("/v1/completions", completionJson(8, true, "q" + QByteArray::number(i))));
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(clients.begin(), clients.end(), [](const auto& c) { return c->isDone(); }), 30000);
        QCOMPARE(sim->terminate(), 0);
        QList<QJsonObject> truth = readJsonl(truthPath);
        QCOMPARE(truth.size(), 4);
        std::sort(truth.begin(), truth.end(), [](const QJsonObject& a, const QJsonObject& b) {
            return a.value(QStringLiteral("admitted_us")).toDouble()
                < b.value(QStringLiteral("admitted_us")).toDouble();
        });
        // The third and fourth start only after one of the first two has written its last token.
        const double firstEnd = std::min(truth[0].value(QStringLiteral("token_us")).toArray().last().toDouble(),
            truth[1].value(QStringLiteral("token_us")).toArray().last().toDouble());
        QVERIFY(truth[2].value(QStringLiteral("first_token_us")).toDouble() > firstEnd);
        QVERIFY(truth[3].value(QStringLiteral("first_token_us")).toDouble() > firstEnd);
    }

    // /metrics carries vLLM V1's latency histograms, filled from the instants the
    // truth log records: the queue (arrival to the admitting step) bucket by
    // bucket and to the microsecond in its sum; prefill from the same admission
    // to the first token (the truth log stamps the token when written, the
    // histogram at the end of its step, so they differ by the write only).
    void publishesVllmLatencyHistogramsFromItsOwnInstants()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim(
            { QStringLiteral("--max-num-seqs"), QStringLiteral("2"), QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        constexpr int kRequests = 6;
        std::vector<std::unique_ptr<RawHttpClient>> clients;
        for (int i = 0; i < kRequests; ++i) {
            clients.push_back(std::make_unique<RawHttpClient>());
            clients.back()->start(
                sim->port(), postRequest("/v1/completions", completionJson(8, true, "h" + QByteArray::number(i))));
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(clients.begin(), clients.end(), [](const auto& c) { return c->isDone(); }), 30000);
        const QByteArray metrics = exchange(sim->port(), getRequest("/metrics")).value(0).body;
        QCOMPARE(sim->terminate(), 0);
        QVERIFY(metrics.contains(R"(vllm:request_queue_time_seconds_bucket{model_name="sim-8b",le="0.3"})"));
        QVERIFY(metrics.contains(R"(vllm:request_queue_time_seconds_bucket{model_name="sim-8b",le="1.0"})"));
        QVERIFY(metrics.contains(R"(vllm:time_to_first_token_seconds_bucket{model_name="sim-8b",le="0.001"})"));
        QCOMPARE(
            metricValue(metrics, R"(vllm:time_to_first_token_seconds_count{model_name="sim-8b"})"), double(kRequests));
        QCOMPARE(
            metricValue(metrics, R"(vllm:e2e_request_latency_seconds_count{model_name="sim-8b"})"), double(kRequests));
        const ks::LatencyHistograms h = ks::extractLatencyHistograms(ks::parsePrometheusText(metrics).samples);

        const QList<QJsonObject> truth = readJsonl(truthPath);
        QCOMPARE(truth.size(), kRequests);
        std::vector<double> queue, prefill;
        for (const QJsonObject& t : truth) {
            const double arrival = t.value(QStringLiteral("arrival_us")).toDouble();
            const double admitted = t.value(QStringLiteral("admitted_us")).toDouble();
            queue.push_back((admitted - arrival) / 1e6);
            prefill.push_back((t.value(QStringLiteral("first_token_us")).toDouble() - admitted) / 1e6);
        }
        QVERIFY(*std::max_element(queue.begin(), queue.end()) > 0.1); // four of the six waited for a slot
        QCOMPARE(h.queue.count, double(kRequests));
        QVERIFY(std::abs(h.queue.sum - std::accumulate(queue.begin(), queue.end(), 0.0)) < 1e-5);
        for (std::size_t b = 0; b < h.queue.upperBounds.size(); ++b) {
            const double le = h.queue.upperBounds[b];
            const auto below = std::count_if(queue.begin(), queue.end(), [le](double q) { return q <= le; });
            QCOMPARE(h.queue.cumulative[b], double(below));
        }
        QCOMPARE(h.prefill.count, double(kRequests));
        const double prefillTruth = std::accumulate(prefill.begin(), prefill.end(), 0.0);
        QVERIFY2(h.prefill.sum <= prefillTruth + 1e-6 && h.prefill.sum > prefillTruth - kRequests * 0.002,
            qPrintable(QStringLiteral("%1 vs %2").arg(h.prefill.sum).arg(prefillTruth)));
    }

    void injectsEachFaultAsConfigured_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("fault");
        QTest::newRow("500") << QStringList { QStringLiteral("--fail-500"), QStringLiteral("1") }
                             << QStringLiteral("http_500");
        QTest::newRow("429") << QStringList { QStringLiteral("--fail-429"), QStringLiteral("1") }
                             << QStringLiteral("http_429");
        QTest::newRow("disconnect") << QStringList { QStringLiteral("--disconnect-mid"), QStringLiteral("1") }
                                    << QStringLiteral("disconnect_mid");
        QTest::newRow("malformed") << QStringList { QStringLiteral("--malformed"), QStringLiteral("1") }
                                   << QStringLiteral("malformed_event");
        QTest::newRow("error event") << QStringList { QStringLiteral("--error-event"), QStringLiteral("1") }
                                     << QStringLiteral("error_event");
        QTest::newRow("stall") << QStringList { QStringLiteral("--stall"), QStringLiteral("1"),
            QStringLiteral("--stall-ms"), QStringLiteral("300") }
                               << QStringLiteral("stall");
        QTest::newRow("none") << QStringList {} << QStringLiteral("none");
    }
    void injectsEachFaultAsConfigured()
    {
        QFETCH(QStringList, flags);
        QFETCH(QString, fault);
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim(flags + QStringList { QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        const RawResponse r = exchange(sim->port(), postRequest("/v1/completions", completionJson(10))).value(0);
        const SseStream sse = splitSse(r.body);
        QCOMPARE(sim->terminate(), 0);
        const QJsonObject truth = readJsonl(truthPath).value(0);
        QCOMPARE(truth.value(QStringLiteral("fault")).toString(), fault);
        QVERIFY(
            truth.value(QStringLiteral("end_us")).toDouble() >= truth.value(QStringLiteral("arrival_us")).toDouble());

        int invalidEvents = 0;
        int errorEvents = 0;
        for (const QByteArray& d : sse.data) {
            if (d == "[DONE]")
                continue;
            if (!isValidJson(d))
                ++invalidEvents;
            else if (parseObject(d).contains(QStringLiteral("error")))
                ++errorEvents;
        }
        const bool done = !sse.data.isEmpty() && sse.data.last() == "[DONE]";
        if (fault == QLatin1String("http_500")) {
            QCOMPARE(r.status, 500);
            QVERIFY(parseObject(r.body).contains(QStringLiteral("error")));
        } else if (fault == QLatin1String("http_429")) {
            QCOMPARE(r.status, 429);
            QCOMPARE(r.header("retry-after"), QByteArray("1"));
        } else if (fault == QLatin1String("disconnect_mid")) {
            QCOMPARE(r.status, 200);
            QVERIFY(!r.complete);
            QVERIFY(!done);
            QCOMPARE(tokenEvents(sse.data), 5);
        } else if (fault == QLatin1String("malformed_event")) {
            QCOMPARE(invalidEvents, 1);
            QVERIFY(done);
            QCOMPARE(tokenEvents(sse.data), 10);
        } else if (fault == QLatin1String("error_event")) {
            QCOMPARE(errorEvents, 1);
            QVERIFY(done);
            QCOMPARE(tokenEvents(sse.data), 5);
        } else if (fault == QLatin1String("stall")) {
            QVERIFY(done);
            QCOMPARE(tokenEvents(sse.data), 10);
            const QJsonArray times = truth.value(QStringLiteral("token_us")).toArray();
            QCOMPARE(times.size(), 10);
            double longestGap = 0;
            for (int i = 1; i < times.size(); ++i)
                longestGap = std::max(longestGap, times[i].toDouble() - times[i - 1].toDouble());
            QVERIFY2(longestGap >= 300000, qPrintable(QString::number(longestGap)));
        } else {
            QVERIFY(done);
            QCOMPARE(invalidEvents + errorEvents, 0);
            QCOMPARE(tokenEvents(sse.data), 10);
        }
    }

    void wireVariationsKeepEventsIntact_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::newRow("crlf") << QStringLiteral("--crlf");
        QTest::newRow("split writes") << QStringLiteral("--split-writes");
        QTest::newRow("comments") << QStringLiteral("--comments");
    }
    void wireVariationsKeepEventsIntact()
    {
        QFETCH(QString, flag);
        auto sim = startSim({ flag });
        QVERIFY(sim);
        const RawResponse r = exchange(sim->port(), postRequest("/v1/completions", completionJson(20))).value(0);
        const SseStream sse = splitSse(r.body);
        QCOMPARE(tokenEvents(sse.data), 20);
        for (const QByteArray& d : sse.data)
            QVERIFY(d == "[DONE]" || isValidJson(d));
        if (flag == QLatin1String("--crlf")) {
            QVERIFY(sse.crlf);
            QVERIFY(!QByteArray(r.body).replace("\r\n", "").contains('\n'));
        } else if (flag == QLatin1String("--split-writes")) {
            int partial = 0;
            for (const QByteArray& chunk : r.chunks)
                partial += !chunk.endsWith("\n\n");
            QVERIFY2(partial >= 10, qPrintable(QString::number(partial)));
        } else {
            QVERIFY(sse.comments >= 2);
        }
    }

    void sigtermEndsStreamsVisiblyAndFlushesTheTruthLog()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        auto sim = startSim({ QStringLiteral("--truth-log"), truthPath });
        QVERIFY(sim);
        RawHttpClient client;
        QSignalSpy done(&client, &RawHttpClient::done);
        client.start(sim->port(), postRequest("/v1/completions", completionJson(2000)));
        QTRY_VERIFY_WITH_TIMEOUT(tokenEvents(splitSse(client.received()).data) >= 3, 20000);
        QCOMPARE(sim->terminate(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(client.isDone(), 10000);
        const SseStream sse = splitSse(client.responses().value(0).body);
        QVERIFY(parseObject(sse.data.value(sse.data.size() - 2)).contains(QStringLiteral("error")));
        const QJsonObject truth = readJsonl(truthPath).value(0);
        QCOMPARE(truth.value(QStringLiteral("fault")).toString(), QStringLiteral("server_shutdown"));
    }

    void refusesAPortInUse()
    {
        auto first = startSim({});
        QVERIFY(first);
        QProcess second;
        second.start(QStringLiteral(KNOBSCOPE_SIM_BIN), { QStringLiteral("--port"), QString::number(first->port()) });
        QVERIFY(second.waitForFinished(10000));
        QCOMPARE(second.exitCode(), 1);
        QVERIFY(second.readAllStandardError().contains("cannot listen"));
    }
};

QTEST_GUILESS_MAIN(TestSimIntegration)
#include "tst_simintegration.moc"
