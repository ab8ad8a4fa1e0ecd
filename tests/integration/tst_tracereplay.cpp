// Trace replay against the real knobscope-sim: each request reaches the server
// at its scheduled offset, with the recorded lengths, and the server's prefix
// cache serves exactly the blocks the trace's shared hash ids imply.
#include "../sim/simprocess.h"
#include "load/loadrunner.h"
#include "truthlog.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace ks;

namespace {

// A generated trace row and what the server's prefix cache must serve for it.
struct Row {
    qint64 atUs = 0;
    int input = 0;
    int output = 0;
    std::vector<quint64> ids;
    int expectedCached = 0;
};

// Mooncake-style rows at `rate` per second (exponential gaps). A "document" is
// a chain of 1-3 blocks, sent whole when it first appears; later requests send
// one of its leading prefixes followed by a block of their own, cut short. A
// prefix is only reused once its document is a second old, long after its first
// prefill finished, so the blocks the cache holds follow from the trace alone:
// a reuse of m blocks is served m * 512 tokens, everything else none.
std::vector<Row> generateTrace(int count, double rate, quint64 seed)
{
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(rate);
    std::uniform_real_distribution<double> unit(0, 1);
    struct Doc {
        std::vector<quint64> ids;
        qint64 atUs;
    };
    std::vector<Doc> docs;
    quint64 nextId = 1000;
    double t = 0;
    std::vector<Row> rows;
    for (int i = 0; i < count; ++i) {
        Row row;
        row.atUs = qint64(t * 1e6);
        row.output = 2 + int(rng() % 6);
        std::vector<const Doc*> ready;
        for (const Doc& d : docs)
            if (d.atUs <= row.atUs - 1'000'000)
                ready.push_back(&d);
        const double kind = unit(rng);
        if (kind < 0.1) {
            row.input = 20 + int(rng() % 180); // no hash ids: a prompt of its own
        } else if (kind < 0.35 || ready.empty()) {
            Doc d { {}, row.atUs };
            const int blocks = 1 + int(rng() % 3);
            for (int b = 0; b < blocks; ++b)
                d.ids.push_back(nextId++);
            row.ids = d.ids;
            row.input = blocks * 512;
            docs.push_back(d);
        } else {
            const Doc& d = *ready[rng() % ready.size()];
            const int m = 1 + int(rng() % d.ids.size());
            row.ids.assign(d.ids.begin(), d.ids.begin() + m);
            row.ids.push_back(nextId++);
            row.input = m * 512 + 16 + int(rng() % 240);
            row.expectedCached = m * 512;
        }
        rows.push_back(row);
        t += gap(rng);
    }
    return rows;
}

bool writeMooncake(const QString& path, const std::vector<Row>& rows)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    for (const Row& r : rows) {
        const nlohmann::json line = { { "timestamp", double(r.atUs) / 1000.0 }, { "input_length", r.input },
            { "output_length", r.output }, { "hash_ids", r.ids } };
        file.write(QByteArray::fromStdString(line.dump()) + '\n');
    }
    return true;
}

struct Replay {
    std::vector<RequestRecord> records;
    qint64 t0Us = 0;
};

Replay replay(quint16 port, const QString& tracePath, TraceIndex::Format format, double speed)
{
    Replay out;
    LoadSpec spec;
    spec.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    spec.model = QStringLiteral("sim-1.8b");
    spec.mode = LoadSpec::Mode::Trace;
    spec.runLabel = QStringLiteral("trace");
    TraceSpec trace;
    trace.path = tracePath;
    trace.format = format;
    trace.speed = speed;
    auto read = readTrace(tracePath, format);
    if (const auto* error = std::get_if<QString>(&read)) {
        qWarning("%s", qPrintable(*error));
        return out;
    }
    trace.index = std::make_shared<const TraceIndex>(std::move(std::get<TraceIndex>(read)));
    spec.trace = trace;
    LoadRunner runner(spec);
    QObject::connect(&runner, &LoadRunner::recordsReady, [&](const QVector<RequestRecord>& batch) {
        out.records.insert(out.records.end(), batch.begin(), batch.end());
    });
    QObject::connect(&runner, &LoadRunner::started, [&](qint64 t0) { out.t0Us = t0; });
    QSignalSpy finished(&runner, &LoadRunner::finished);
    if (const QString error = runner.start(); !error.isEmpty())
        qWarning("%s", qPrintable(error));
    else
        finished.wait(180000);
    return out;
}

std::map<qint64, kssim::TruthRecord> truthById(const QString& path)
{
    std::map<qint64, kssim::TruthRecord> out;
    for (const kssim::TruthRecord& r : kssim::readTruthLog(path))
        if (!r.clientRequestId.isEmpty())
            out[kssim::requestIndexOf(r)] = r;
    return out;
}

// What this test holds the schedule to, with room for a loaded 2-core machine (a
// sanitizer build beside another test's simulator): a request reaches the server
// within 10 ms of its offset at p50, at most 5 % of requests are later than one
// inter-arrival gap of the trace (25 ms at 40 req/s), and lateness does not grow
// over the run. A client that sent in bursts misses the p50 by far, one that kept
// a closed loop or drifted off the offsets grows its lateness without bound; a
// busy machine delays a few requests, not the median or the trend. (A p99 bound
// failed here once under load.) The 5 ms figure on a release build is a
// measurement, not an assertion: bench/trace_schedule.py and docs/PERFORMANCE.md
// ("Trace replay").
constexpr double kP50BoundMs = 10.0;
constexpr double kGapMs = 25.0;
constexpr double kLateShareBound = 0.05;
constexpr double kDriftBoundMs = 10.0;

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, std::size_t(p / 100.0 * double(v.size())))];
}

double shareAbove(const std::vector<double>& v, double bound)
{
    return v.empty()
        ? 1.0
        : double(std::count_if(v.begin(), v.end(), [bound](double x) { return x > bound; })) / double(v.size());
}

// The median lateness of the last quarter of the run (in schedule order) less that of the first quarter.
double drift(const std::vector<double>& lateInScheduleOrder)
{
    const std::size_t q = lateInScheduleOrder.size() / 4;
    if (q == 0)
        return 0;
    const std::vector<double> first(lateInScheduleOrder.begin(), lateInScheduleOrder.begin() + std::ptrdiff_t(q));
    const std::vector<double> last(lateInScheduleOrder.end() - std::ptrdiff_t(q), lateInScheduleOrder.end());
    return percentile(last, 50) - percentile(first, 50);
}

} // namespace

class TestTraceReplay : public QObject {
    Q_OBJECT

    std::unique_ptr<SimProcess> startSim(const QString& truthPath)
    {
        auto sim = std::make_unique<SimProcess>();
        QString error;
        if (!sim->start(
                { QStringLiteral("--profile"), QStringLiteral("sim-1.8b"), QStringLiteral("--truth-log"), truthPath },
                &error)) {
            qWarning("knobscope-sim did not start: %s", qPrintable(error));
            return nullptr;
        }
        return sim;
    }

    // Every request's arrival at the server against t0 + t_sched_us, in ms.
    // In schedule order, so the first and last quarters are the run's start and end.
    static std::vector<double> arrivalLateness(const Replay& r, const std::map<qint64, kssim::TruthRecord>& truth)
    {
        std::vector<std::pair<qint64, double>> byOffset;
        for (const RequestRecord& rec : r.records)
            if (const auto it = truth.find(rec.id); it != truth.end())
                byOffset.emplace_back(rec.tSchedUs, double(it->second.arrivalUs - (r.t0Us + rec.tSchedUs)) / 1000.0);
        std::stable_sort(
            byOffset.begin(), byOffset.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<double> late;
        for (const auto& item : byOffset)
            late.push_back(item.second);
        return late;
    }

    static void verifyOnSchedule(const std::vector<double>& late)
    {
        const QString figures = QStringLiteral("p50 %1 ms, p99 %2 ms, later than %3 ms: %4 %, drift %5 ms")
                                    .arg(percentile(late, 50))
                                    .arg(percentile(late, 99))
                                    .arg(kGapMs)
                                    .arg(100 * shareAbove(late, kGapMs))
                                    .arg(drift(late));
        QVERIFY2(
            std::all_of(late.begin(), late.end(), [](double x) { return std::isfinite(x); }), "lateness not finite");
        QVERIFY2(percentile(late, 50) <= kP50BoundMs, qPrintable(figures));
        QVERIFY2(shareAbove(late, kGapMs) <= kLateShareBound, qPrintable(figures));
        QVERIFY2(drift(late) <= kDriftBoundMs, qPrintable(figures));
        QVERIFY2(percentile(late, 0) > -1.0, qPrintable(figures)); // never before its time (beyond clock rounding)
    }

private slots:
    void initTestCase() { qRegisterMetaType<LoadResult>(); }

    // 400 requests at 40 req/s (ten seconds of trace) at speed 1.
    void mooncakeTraceReplaysOnSchedule()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        const QString tracePath = dir.filePath(QStringLiteral("trace.jsonl"));
        const std::vector<Row> rows = generateTrace(400, 40.0, 35);
        QVERIFY(writeMooncake(tracePath, rows));
        auto sim = startSim(truthPath);
        QVERIFY(sim);
        const Replay r = replay(sim->port(), tracePath, TraceIndex::Format::Mooncake, 1.0);
        QCOMPARE(sim->terminate(), 0);
        QCOMPARE(r.records.size(), rows.size());
        const auto truth = truthById(truthPath);
        QCOMPARE(truth.size(), rows.size());

        int reused = 0;
        for (const RequestRecord& rec : r.records) {
            const Row& row = rows[std::size_t(rec.id)];
            const kssim::TruthRecord& t = truth.at(rec.id);
            QVERIFY2(rec.ok, qPrintable(rec.error));
            QCOMPARE(rec.tSchedUs, row.atUs);
            QCOMPARE(rec.inTokens, row.input);
            QCOMPARE(rec.outTokens, row.output);
            QCOMPARE(t.promptTokens, row.input);
            QCOMPARE(t.maxTokens, row.output);
            QCOMPARE(t.outputTokens, row.output);
            if (t.cachedTokens != row.expectedCached)
                QFAIL(qPrintable(QStringLiteral("request %1 (ids %2, %3 tokens): cache served %4 tokens, expected %5")
                                     .arg(rec.id)
                                     .arg(row.ids.size())
                                     .arg(row.input)
                                     .arg(t.cachedTokens)
                                     .arg(row.expectedCached)));
            reused += row.expectedCached > 0;
        }
        QVERIFY(reused > 100); // the trace does share blocks

        const std::vector<double> late = arrivalLateness(r, truth);
        QCOMPARE(late.size(), rows.size());
        const double p99 = percentile(late, 99);
        qInfo("arrival after schedule: p50 %.3f ms, p99 %.3f ms, max %.3f ms", percentile(late, 50), p99,
            percentile(late, 100));
        std::vector<double> sendLate;
        for (const RequestRecord& rec : r.records)
            sendLate.push_back(double(rec.scheduleLagUs()) / 1000.0);
        qInfo(
            "client send after schedule: p50 %.3f ms, p99 %.3f ms", percentile(sendLate, 50), percentile(sendLate, 99));
        verifyOnSchedule(late);
    }

    // An Azure CSV (datetime stamps) at twice its speed: on schedule, lengths as recorded.
    void azureTraceReplaysOnSchedule()
    {
        QTemporaryDir dir;
        const QString truthPath = dir.filePath(QStringLiteral("truth.jsonl"));
        const QString tracePath = dir.filePath(QStringLiteral("azure.csv"));
        std::mt19937_64 rng(7);
        std::exponential_distribution<double> gap(20.0);
        QByteArray csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
        std::vector<std::pair<int, int>> lengths;
        double t = 0;
        for (int i = 0; i < 80; ++i) {
            const QTime at = QTime(18, 15, 46).addMSecs(int(t * 1000));
            const int usPart = int(std::fmod(t * 1e6, 1000.0));
            lengths.emplace_back(50 + int(rng() % 400), 1 + int(rng() % 6));
            csv += "2023-11-16 " + at.toString(QStringLiteral("HH:mm:ss.zzz")).toLatin1()
                + QByteArray::number(usPart).rightJustified(3, '0') + "0," + QByteArray::number(lengths.back().first)
                + ',' + QByteArray::number(lengths.back().second) + '\n';
            t += gap(rng);
        }
        QFile file(tracePath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(csv);
        file.close();
        auto sim = startSim(truthPath);
        QVERIFY(sim);
        const Replay r = replay(sim->port(), tracePath, TraceIndex::Format::Azure, 2.0);
        QCOMPARE(sim->terminate(), 0);
        QCOMPARE(r.records.size(), lengths.size());
        const auto truth = truthById(truthPath);
        for (const RequestRecord& rec : r.records) {
            QVERIFY2(rec.ok, qPrintable(rec.error));
            const kssim::TruthRecord& tr = truth.at(rec.id);
            QCOMPARE(tr.promptTokens, lengths[std::size_t(rec.id)].first);
            QCOMPARE(tr.outputTokens, lengths[std::size_t(rec.id)].second);
            QCOMPARE(tr.cachedTokens, 0); // no hash ids: distinct prompts
        }
        const std::vector<double> late = arrivalLateness(r, truth);
        QCOMPARE(late.size(), lengths.size());
        verifyOnSchedule(late);
        const auto last = std::max_element(r.records.begin(), r.records.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.tSchedUs < b.tSchedUs; });
        QVERIFY(std::abs(double(last->tSchedUs) - t / 2 * 1e6) < 1e6); // twice as fast
    }
};

QTEST_GUILESS_MAIN(TestTraceReplay)
#include "tst_tracereplay.moc"
