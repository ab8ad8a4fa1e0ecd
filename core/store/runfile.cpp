#include "store/runfile.h"

#include "store/requestlinefast.h"

#include <QFile>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <unordered_map>

namespace ks {

namespace {

// A part smaller than this is not worth a thread of its own.
constexpr qint64 kMinPartBytes = 8 << 20;
constexpr qint64 kBlockBytes = 8 << 20;
constexpr std::size_t kMaxParts = 16;

/// What one part of the file holds, in its own order; line numbers count from
/// the part's first line (the merge adds the lines before it).
struct Part {
    struct Run {
        RunData data;
        bool hasInfo = false;
        bool hasSummary = false;
    };
    std::vector<Run> runs; ///< in order of first appearance within the part
    nlohmann::json experiment;
    bool hasExperiment = false;
    nlohmann::json search; ///< the last `search` line of the part
    std::vector<nlohmann::json> rounds; ///< the part's `round` lines
    std::vector<RunFileIssue> issues;
    bool truncated = false;
    qint64 lines = 0;
};

class PartReader {
public:
    PartReader(Part& part, qint64 begin, qint64 end, bool last, std::atomic<qint64>& done)
        : m_part(part)
        , m_begin(begin)
        , m_end(end)
        , m_last(last)
        , m_done(done)
    {
    }

    void read(const QString& path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly) || !file.seek(m_begin))
            return; // opened once already by the caller: only a file removed meanwhile gets here
        // The buffer keeps simdjson's padding after the last byte read.
        std::size_t block = std::size_t(kBlockBytes);
        std::vector<char> buffer(block + FastRequestParser::kPadding);
        std::size_t held = 0; // bytes of an unfinished line carried from the previous block
        qint64 at = m_begin;
        while (at < m_end) {
            if (held == block) { // a line longer than the buffer
                block *= 2;
                buffer.resize(block + FastRequestParser::kPadding);
            }
            const qint64 want = std::min<qint64>(qint64(block - held), m_end - at);
            const qint64 got = file.read(buffer.data() + held, want);
            if (got <= 0)
                break;
            at += got;
            m_done.fetch_add(got, std::memory_order_relaxed);
            const std::size_t filled = held + std::size_t(got);
            std::size_t lineStart = 0;
            while (true) {
                const void* nl = std::memchr(buffer.data() + lineStart, '\n', filled - lineStart);
                if (!nl)
                    break;
                const std::size_t lineEnd = std::size_t(static_cast<const char*>(nl) - buffer.data());
                line(buffer.data() + lineStart, lineEnd - lineStart, buffer.size() - lineStart, true);
                lineStart = lineEnd + 1;
            }
            held = filled - lineStart;
            std::memmove(buffer.data(), buffer.data() + lineStart, held);
        }
        if (held > 0) {
            std::fill(buffer.begin() + std::ptrdiff_t(held), buffer.end(), ' ');
            line(buffer.data(), held, buffer.size(), false);
        }
        for (Part::Run& run : m_part.runs)
            run.data.requests.shrinkToFit(); // the reserve's margin
    }

private:
    Part::Run& runFor(const QString& name)
    {
        if (m_lastRun && m_lastRun->data.run == name)
            return *m_lastRun;
        auto it = m_index.find(name);
        if (it == m_index.end()) {
            it = m_index.emplace(name, m_part.runs.size()).first;
            Part::Run run;
            run.data.run = name;
            run.data.requests.setRun(name);
            m_part.runs.push_back(std::move(run));
        }
        m_lastRun = &m_part.runs[it->second];
        return *m_lastRun;
    }

    void reserveFor(Part::Run& run, std::size_t lineBytes)
    {
        // Rows grown by doubling would hold up to twice their size: once the
        // first lines show their size, reserve what the rest of the part needs.
        m_sampleBytes += lineBytes;
        ++m_sampleLines;
        if (m_reserved || m_sampleLines < 512)
            return;
        m_reserved = true;
        const double linesLeft = double(m_end - m_begin) / (double(m_sampleBytes) / double(m_sampleLines));
        const double gapsPerLine = double(m_sampleGaps) / double(m_sampleLines);
        run.data.requests.reserve(std::size_t(linesLeft * 1.01), std::size_t(linesLeft * gapsPerLine * 1.01));
    }

    void line(const char* data, std::size_t size, std::size_t capacity, bool hadNewline)
    {
        const qint64 lineNumber = ++m_part.lines;
        const QString* sameRun = m_lastRun ? &m_lastRun->data.run : nullptr;
        if (m_fast.parse(data, size, capacity, &m_record, sameRun)) {
            Part::Run& run = runFor(m_record.run);
            m_sampleGaps += m_record.itlUs.size();
            reserveFor(run, size);
            run.data.requests.push_back(m_record);
            return;
        }
        const std::size_t issuesBefore = m_part.issues.size();
        RunLine decoded = readRunLine(QByteArrayView(data, qsizetype(size)), lineNumber, m_part.issues, sameRun);
        if (!hadNewline && m_last && decoded.kind == RunLine::Kind::Skipped) {
            // A killed writer leaves half a line: say so instead of "not valid JSON".
            m_part.truncated = true;
            m_part.issues.resize(issuesBefore);
            m_part.issues.push_back(
                { lineNumber, QStringLiteral("truncated last line (the writer was stopped mid-line)") });
            return;
        }
        switch (decoded.kind) {
        case RunLine::Kind::Experiment:
            m_part.experiment = std::move(decoded.object);
            m_part.hasExperiment = true;
            break;
        case RunLine::Kind::Search:
            m_part.search = std::move(decoded.object);
            break;
        case RunLine::Kind::Round:
            m_part.rounds.push_back(std::move(decoded.object));
            break;
        case RunLine::Kind::Run: {
            Part::Run& run = runFor(decoded.run);
            run.data.config = QString::fromStdString(decoded.object.value("config", std::string()));
            run.data.arm = QString::fromStdString(decoded.object.value("arm", std::string()));
            run.data.info = std::move(decoded.object);
            run.hasInfo = true;
            break;
        }
        case RunLine::Kind::Request:
            runFor(decoded.run).data.requests.push_back(decoded.request);
            break;
        case RunLine::Kind::Summary: {
            Part::Run& run = runFor(decoded.run);
            run.data.summary = runSummaryFromJson(std::move(decoded.object));
            run.hasSummary = true;
            break;
        }
        default:
            break; // server samples and events: the replay's business; blank, unknown and skipped lines
        }
    }

    Part& m_part;
    qint64 m_begin;
    qint64 m_end;
    bool m_last;
    std::atomic<qint64>& m_done;
    FastRequestParser m_fast;
    RequestRecord m_record;
    std::unordered_map<QString, std::size_t> m_index;
    Part::Run* m_lastRun = nullptr; // requests come in long runs of one label: skip the lookup
    std::size_t m_sampleBytes = 0, m_sampleLines = 0, m_sampleGaps = 0;
    bool m_reserved = false;
};

// Part boundaries: the byte after a newline, near equal shares of the file.
std::vector<qint64> splitPoints(QFile& file, qint64 total)
{
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t parts
        = std::clamp<std::size_t>(std::size_t(total / kMinPartBytes), 1, std::min(cores, kMaxParts));
    std::vector<qint64> points { 0 };
    char c = 0;
    for (std::size_t k = 1; k < parts; ++k) {
        qint64 at = std::max(points.back(), total * qint64(k) / qint64(parts));
        if (!file.seek(at))
            break;
        while (file.getChar(&c) && c != '\n')
            ++at;
        at = file.pos();
        if (at >= total)
            break;
        points.push_back(at);
    }
    points.push_back(total);
    return points;
}

} // namespace

namespace {

// An object of the experiment line, or an empty one when the file has none.
const nlohmann::json& experimentObject(const nlohmann::json& experiment, const char* key)
{
    static const nlohmann::json kNone = nlohmann::json::object();
    if (!experiment.is_object())
        return kNone;
    const auto it = experiment.find(key);
    return it != experiment.end() && it->is_object() ? *it : kNone;
}

} // namespace

const nlohmann::json& RunFile::spec() const
{
    return experimentObject(experiment, "spec");
}

const nlohmann::json& RunFile::environment() const
{
    return experimentObject(experiment, "environment");
}

QString RunFile::experimentName(const QString& fallback) const
{
    const nlohmann::json& s = spec();
    const auto it = s.find("name");
    return it != s.end() && it->is_string() && !it->get_ref<const std::string&>().empty()
        ? QString::fromStdString(it->get<std::string>())
        : fallback;
}

bool readRunFile(const QString& path, RunFile* out, QString* error, const ReadProgress& progress)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    const qint64 total = file.size();
    const std::vector<qint64> points = splitPoints(file, total);
    file.close();
    const std::size_t partCount = points.size() - 1;
    std::vector<Part> parts(partCount);
    std::atomic<qint64> done { 0 };
    std::atomic<std::size_t> finished { 0 };
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < partCount; ++k) {
        threads.emplace_back([&, k] {
            PartReader(parts[k], points[k], points[k + 1], k + 1 == partCount, done).read(path);
            finished.fetch_add(1);
        });
    }
    // The calling thread reads the first part, and reports progress for all of them.
    std::thread first([&] {
        PartReader(parts[0], points[0], points[1], partCount == 1, done).read(path);
        finished.fetch_add(1);
    });
    if (progress) {
        while (finished.load() < partCount) {
            progress(done.load(std::memory_order_relaxed), total);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    first.join();
    for (std::thread& t : threads)
        t.join();
    if (progress)
        progress(total, total);

    // Merge in file order: runs by first appearance, a later run or summary line wins.
    std::unordered_map<QString, std::size_t> runIndex;
    qint64 lineBase = 0;
    for (Part& part : parts) {
        if (part.hasExperiment)
            out->experiment = std::move(part.experiment);
        if (!part.search.is_null())
            out->search = std::move(part.search);
        for (nlohmann::json& round : part.rounds)
            out->rounds.push_back(std::move(round));
        for (Part::Run& run : part.runs) {
            auto it = runIndex.find(run.data.run);
            if (it == runIndex.end()) {
                it = runIndex.emplace(run.data.run, out->runs.size()).first;
                RunData data;
                data.run = run.data.run;
                data.requests.setRun(data.run);
                out->runs.push_back(std::move(data));
            }
            RunData& target = out->runs[it->second];
            if (run.hasInfo) {
                target.config = run.data.config;
                target.arm = run.data.arm;
                target.info = std::move(run.data.info);
            }
            if (run.hasSummary)
                target.summary = std::move(run.data.summary);
            target.requests.append(std::move(run.data.requests));
        }
        for (RunFileIssue& issue : part.issues)
            out->issues.push_back({ issue.line + lineBase, std::move(issue.message) });
        out->truncated = out->truncated || part.truncated;
        lineBase += part.lines;
        part = Part();
    }
    out->lines = lineBase;
    return true;
}

} // namespace ks
