// A bare QNetworkAccessManager streaming client: post, read, timestamp, and nothing
// of knobscope_core. It is the floor Qt itself sets for knobscope's send path and
// client CPU per event: the same closed-loop load, the same threads and
// QNAM layout (one QNAM per <= 6 streams, docs/PERFORMANCE.md), the same
// pre-opened connections, but no records, parser or decoder beyond a scan for the
// first non-empty "text". bench/send_path.py runs it beside knobscope.
//
// Output: one JSON line per request (bench/send_path.py reads them), then a summary line.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QThread>
#include <QUrl>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include <sys/resource.h>

namespace {

qint64 nowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double processCpuS()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

constexpr int kStreamsPerManager = 6; // Qt 6.4's fixed HTTP/1.1 connections per host and QNAM

struct Load {
    QUrl completions;
    QUrl models;
    QByteArray model;
    QByteArray label;
    int concurrency = 256;
    int requests = 1024;
    int maxTokens = 128;
    int inputWords = 32;
    bool warmPost = false;
};

// A distinct prompt per request, so the simulator's prefix cache never hits.
QByteArray prompt(int index, int words)
{
    static const char* const kWords[] = { "amber", "brook", "cedar", "delta", "ember", "fjord", "grove", "harbor",
        "inlet", "juniper", "kettle", "lagoon", "meadow", "nectar", "orchard", "pebble" };
    QByteArray out = "r" + QByteArray::number(index);
    quint32 h = quint32(index) * 2654435761u + 1;
    for (int i = 1; i < words; ++i) {
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
        out += ' ';
        out += kWords[h % 16];
    }
    return out;
}

QByteArray body(const Load& load, int index)
{
    return "{\"model\":\"" + load.model + "\",\"prompt\":\"" + prompt(index, load.inputWords)
        + "\",\"max_tokens\":" + QByteArray::number(load.maxTokens)
        + ",\"temperature\":0,\"stream\":true,\"ignore_eos\":true,\"stream_options\":{\"include_usage\":true}}";
}

struct Shared {
    Load load;
    std::atomic<int> next { 0 };
};

struct Stream {
    int index = 0;
    qint64 tPostUs = 0;
    qint64 lastTokenUs = -1;
    qint64 ttftUs = -1;
    int tokens = 0;
    bool done = false;
    std::vector<qint64> itlUs;
    QByteArray pending;
    qsizetype scanned = 0;
};

// One worker thread: its QNAMs, its share of the streams, its output lines.
class Worker : public QObject {
public:
    Worker(std::shared_ptr<Shared> shared, int streamCount)
        : m_shared(std::move(shared))
        , m_streams(streamCount)
    {
    }

    QByteArray lines;
    qint64 events = 0;

    // Pre-open every connection with GET /v1/models so no timed request pays a handshake.
    void prepare(std::function<void()> prepared)
    {
        auto remaining = std::make_shared<int>(m_streams);
        for (int i = 0; i < m_streams; i += kStreamsPerManager) {
            auto* nam = new QNetworkAccessManager(this);
            m_managers.push_back({ nam, std::min(kStreamsPerManager, m_streams - i) });
            for (int k = 0; k < m_managers.back().second; ++k) {
                QNetworkReply* reply = nullptr;
                if (m_shared->load.warmPost) {
                    // Diagnostic: open with a one-token POST, so each connection has carried an upload.
                    QNetworkRequest request(m_shared->load.completions);
                    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
                    request.setRawHeader("X-Request-Id", "warm/" + QByteArray::number(i + k));
                    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
                    reply = nam->post(
                        request, "{\"model\":\"" + m_shared->load.model + "\",\"prompt\":\"warm\",\"max_tokens\":1}");
                } else {
                    QNetworkRequest request(m_shared->load.models);
                    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
                    reply = nam->get(request);
                }
                connect(reply, &QNetworkReply::finished, this, [reply, remaining, prepared] {
                    reply->deleteLater();
                    if (--*remaining == 0)
                        prepared();
                });
            }
        }
        if (m_streams == 0)
            prepared();
    }

    void start(std::function<void()> finished)
    {
        m_finished = std::move(finished);
        m_open = m_streams;
        for (const auto& [nam, streams] : m_managers)
            for (int k = 0; k < streams; ++k)
                launch(nam);
        if (m_open == 0)
            m_finished();
    }

private:
    void launch(QNetworkAccessManager* nam)
    {
        const Load& load = m_shared->load;
        const int index = m_shared->next.fetch_add(1);
        if (index >= load.requests) {
            if (--m_open == 0)
                m_finished();
            return;
        }
        QNetworkRequest request(load.completions);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Accept", "text/event-stream");
        request.setRawHeader("Accept-Encoding", "identity");
        request.setRawHeader("X-Request-Id", load.label + '/' + QByteArray::number(index));
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        const QByteArray payload = body(load, index);
        auto stream = std::make_shared<Stream>();
        stream->index = index;
        stream->itlUs.reserve(std::size_t(load.maxTokens));
        stream->tPostUs = nowUs();
        QNetworkReply* reply = nam->post(request, payload);
        connect(reply, &QNetworkReply::readyRead, this, [this, reply, stream] { read(reply, *stream); });
        connect(reply, &QNetworkReply::finished, this, [this, reply, stream, nam] {
            read(reply, *stream);
            record(reply, *stream);
            reply->deleteLater();
            launch(nam);
        });
    }

    // The minimal scan: split events at a blank line, count those whose "text" is non-empty.
    void read(QNetworkReply* reply, Stream& s)
    {
        const qint64 t = nowUs();
        s.pending += reply->readAll();
        qsizetype start = 0;
        for (;;) {
            const qsizetype end = s.pending.indexOf("\n\n", std::max(start, s.scanned));
            if (end < 0)
                break;
            const QByteArrayView event(s.pending.constData() + start, end - start);
            const qsizetype text = event.indexOf("\"text\":\"");
            if (text >= 0 && text + 8 < event.size() && event[text + 8] != '"') {
                if (s.ttftUs < 0)
                    s.ttftUs = t - s.tPostUs;
                else
                    s.itlUs.push_back(t - s.lastTokenUs);
                s.lastTokenUs = t;
                ++s.tokens;
            } else if (event.startsWith("data: [DONE]")) {
                s.done = true;
            }
            start = end + 2;
        }
        s.pending.remove(0, start);
        s.scanned = std::max<qsizetype>(0, s.pending.size() - 1);
    }

    void record(QNetworkReply* reply, const Stream& s)
    {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const bool ok = reply->error() == QNetworkReply::NoError && status == 200 && s.done && s.tokens > 0;
        events += s.tokens;
        QByteArray line = "{\"type\":\"request\",\"rid\":\"" + m_shared->load.label + '/' + QByteArray::number(s.index)
            + "\",\"t_post_mono_us\":" + QByteArray::number(s.tPostUs) + ",\"status\":" + QByteArray::number(status)
            + ",\"ok\":" + (ok ? "true" : "false") + ",\"ttft_us\":" + QByteArray::number(s.ttftUs) + ",\"e2e_us\":"
            + QByteArray::number(nowUs() - s.tPostUs) + ",\"tokens\":" + QByteArray::number(s.tokens) + ",\"itl_us\":[";
        for (std::size_t i = 0; i < s.itlUs.size(); ++i) {
            if (i > 0)
                line += ',';
            line += QByteArray::number(s.itlUs[i]);
        }
        lines += line + "]}\n";
    }

    std::shared_ptr<Shared> m_shared;
    int m_streams = 0;
    int m_open = 0;
    std::vector<std::pair<QNetworkAccessManager*, int>> m_managers;
    std::function<void()> m_finished;
};

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Bare-QNAM closed-loop streaming client (Qt's own floor for the "
                                                    "send path): /v1/completions, stream, ignore_eos."));
    parser.addHelpOption();
    parser.addOption({ QStringLiteral("base-url"), QStringLiteral("Server."), QStringLiteral("url"),
        QStringLiteral("http://127.0.0.1:8000") });
    parser.addOption(
        { QStringLiteral("model"), QStringLiteral("Model."), QStringLiteral("m"), QStringLiteral("sim-1.8b") });
    parser.addOption(
        { QStringLiteral("concurrency"), QStringLiteral("Streams."), QStringLiteral("C"), QStringLiteral("256") });
    parser.addOption({ QStringLiteral("requests"), QStringLiteral("Requests in all."), QStringLiteral("N"),
        QStringLiteral("1024") });
    parser.addOption({ QStringLiteral("max-tokens"), QStringLiteral("Tokens per request."), QStringLiteral("T"),
        QStringLiteral("128") });
    parser.addOption({ QStringLiteral("input-tokens"), QStringLiteral("Words per prompt."), QStringLiteral("I"),
        QStringLiteral("32") });
    parser.addOption({ QStringLiteral("threads"),
        QStringLiteral("Worker threads (default as knobscope: one per 64 streams, at most one per core)."),
        QStringLiteral("n"), QStringLiteral("0") });
    parser.addOption({ QStringLiteral("label"), QStringLiteral("X-Request-Id prefix."), QStringLiteral("L"),
        QStringLiteral("bare") });
    parser.addOption({ QStringLiteral("warm-post"),
        QStringLiteral("Open connections with a one-token POST instead of GET /v1/models (diagnostic).") });
    parser.addOption({ QStringLiteral("out"), QStringLiteral("Output JSONL."), QStringLiteral("file") });
    parser.process(app);
    if (!parser.isSet(QStringLiteral("out"))) {
        std::fputs("bare_qnam: --out FILE is required\n", stderr);
        return 2;
    }

    auto shared = std::make_shared<Shared>();
    Load& load = shared->load;
    const QUrl base(parser.value(QStringLiteral("base-url")));
    load.completions = base.resolved(QUrl(QStringLiteral("/v1/completions")));
    load.models = base.resolved(QUrl(QStringLiteral("/v1/models")));
    load.model = parser.value(QStringLiteral("model")).toUtf8();
    load.label = parser.value(QStringLiteral("label")).toUtf8();
    load.concurrency = std::max(1, parser.value(QStringLiteral("concurrency")).toInt());
    load.requests = std::max(1, parser.value(QStringLiteral("requests")).toInt());
    load.maxTokens = std::max(1, parser.value(QStringLiteral("max-tokens")).toInt());
    load.inputWords = std::max(1, parser.value(QStringLiteral("input-tokens")).toInt());
    load.warmPost = parser.isSet(QStringLiteral("warm-post"));
    int threads = parser.value(QStringLiteral("threads")).toInt();
    if (threads <= 0)
        threads = std::clamp(int(std::ceil(load.concurrency / 64.0)), 1, std::max(1, QThread::idealThreadCount()));
    threads = std::min(threads, load.concurrency);

    std::vector<QThread*> workerThreads;
    std::vector<Worker*> workers;
    int prepared = 0;
    int finished = 0;
    qint64 t0 = 0;
    double cpu0 = 0;
    double cpuS = 0;
    qint64 wallUs = 0;
    for (int i = 0; i < threads; ++i) {
        const int streamCount = load.concurrency / threads + (i < load.concurrency % threads ? 1 : 0);
        auto* thread = new QThread;
        auto* worker = new Worker(shared, streamCount);
        worker->moveToThread(thread);
        workerThreads.push_back(thread);
        workers.push_back(worker);
        thread->start();
    }
    auto onFinished = [&] {
        if (++finished < threads)
            return;
        wallUs = nowUs() - t0;
        cpuS = processCpuS() - cpu0;
        app.quit();
    };
    auto onPrepared = [&] {
        if (++prepared < threads)
            return;
        t0 = nowUs();
        cpu0 = processCpuS();
        for (Worker* w : workers)
            QMetaObject::invokeMethod(w, [w, &app, &onFinished] {
                w->start([&app, &onFinished] { QMetaObject::invokeMethod(&app, onFinished, Qt::QueuedConnection); });
            });
    };
    for (Worker* w : workers)
        QMetaObject::invokeMethod(w, [w, &app, &onPrepared] {
            w->prepare([&app, &onPrepared] { QMetaObject::invokeMethod(&app, onPrepared, Qt::QueuedConnection); });
        });
    app.exec();

    QFile out(parser.value(QStringLiteral("out")));
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        std::fprintf(stderr, "bare_qnam: %s\n", qPrintable(out.errorString()));
        return 2;
    }
    qint64 events = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        // Every worker has finished (its last call reached this thread through a queued call).
        out.write(workers[i]->lines);
        events += workers[i]->events;
        QObject::connect(workerThreads[i], &QThread::finished, workers[i], &QObject::deleteLater);
        workerThreads[i]->quit();
        workerThreads[i]->wait();
        delete workerThreads[i];
    }
    const double perEvent = events > 0 ? cpuS * 1e6 / double(events) : 0;
    out.write(QByteArray("{\"type\":\"summary\",\"client\":\"bare_qnam\",\"t0_mono_us\":") + QByteArray::number(t0)
        + ",\"wall_s\":" + QByteArray::number(double(wallUs) / 1e6) + ",\"cpu_s\":" + QByteArray::number(cpuS)
        + ",\"events\":" + QByteArray::number(events) + ",\"cpu_us_per_event\":" + QByteArray::number(perEvent)
        + ",\"threads\":" + QByteArray::number(threads) + "}\n");
    std::printf("bare_qnam: %d requests, %lld token events in %.2f s, %d threads, CPU %.2f s = %.1f us per event\n",
        load.requests, static_cast<long long>(events), double(wallUs) / 1e6, threads, cpuS, perEvent);
    return 0;
}
