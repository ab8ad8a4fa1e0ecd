// nlohmann SAX (the tolerant request parser) against simdjson On-Demand (the
// fast path) on the same run file, one core each, before choosing which reads
// the hot path. Both decode every request line into a
// RequestRecord; the records are compared field by field. Prints MB/s and the
// ratio (CPU time of the one thread); asserts nothing.
//
//   parse_compare FILE   (bench/open_large writes one: 1M requests, 16 tokens)
#include "store/requestlinefast.h"
#include "store/requestlineparser.h"

#include <QFile>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

// CPU seconds of this thread: the machine is shared, and this measures one core's work.
double cpuS()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

bool same(const ks::RequestRecord& a, const ks::RequestRecord& b)
{
    return a.run == b.run && a.id == b.id && a.probe == b.probe && a.probeRepeat == b.probeRepeat
        && a.tSchedUs == b.tSchedUs && a.tSendUs == b.tSendUs && a.tWireUs == b.tWireUs && a.ttftUs == b.ttftUs
        && a.ttfcUs == b.ttfcUs && a.e2eUs == b.e2eUs && a.itlUs == b.itlUs && a.inTokens == b.inTokens
        && a.outTokens == b.outTokens && a.outTokensFromUsage == b.outTokensFromUsage && a.status == b.status
        && a.ok == b.ok && a.warmup == b.warmup && a.error == b.error && a.errorDetail == b.errorDetail
        && a.outputSha256 == b.outputSha256 && a.reasoningSha256 == b.reasoningSha256 && a.outputText == b.outputText
        && a.reasoningText == b.reasoningText;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fputs("usage: parse_compare RUNS.jsonl\n", stderr);
        return 2;
    }
    QFile file(QString::fromLocal8Bit(argv[1]));
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    std::vector<char> buffer(std::size_t(file.size()) + ks::FastRequestParser::kPadding, ' ');
    file.read(buffer.data(), file.size());
    const std::size_t size = std::size_t(file.size());
    std::vector<std::pair<std::size_t, std::size_t>> lines; // request lines: offset, length
    for (std::size_t at = 0; at < size;) {
        const char* end = static_cast<const char*>(std::memchr(buffer.data() + at, '\n', size - at));
        const std::size_t length = end ? std::size_t(end - buffer.data()) - at : size - at;
        if (std::string_view(buffer.data() + at, length).find("\"type\":\"request\"") != std::string_view::npos)
            lines.emplace_back(at, length);
        at += length + 1;
    }
    double bytes = 0;
    for (const auto& [at, length] : lines)
        bytes += double(length + 1);

    std::vector<ks::RunFileIssue> issues;
    QString syntax;
    ks::RequestRecord record;
    double t = cpuS();
    std::size_t saxRecords = 0;
    for (const auto& [at, length] : lines) {
        saxRecords += ks::parseRequestLine(
                          QByteArrayView(buffer.data() + at, qsizetype(length)), 1, &record, issues, nullptr, &syntax)
            == ks::RequestLineResult::Record;
    }
    const double saxS = cpuS() - t;

    ks::FastRequestParser fast;
    t = cpuS();
    std::size_t fastRecords = 0;
    for (const auto& [at, length] : lines)
        fastRecords += fast.parse(buffer.data() + at, length, buffer.size() - at, &record, nullptr);
    const double fastS = cpuS() - t;

    std::size_t mismatches = 0;
    ks::RequestRecord other;
    for (std::size_t i = 0; i < lines.size(); i += 97) {
        const auto& [at, length] = lines[i];
        const bool a = fast.parse(buffer.data() + at, length, buffer.size() - at, &record, nullptr);
        ks::parseRequestLine(
            QByteArrayView(buffer.data() + at, qsizetype(length)), 1, &other, issues, nullptr, &syntax);
        mismatches += a && !same(record, other);
    }
    const double mb = bytes / 1e6;
    std::printf("%zu request lines, %.0f MB\n", lines.size(), mb);
    std::printf("nlohmann SAX (tolerant):  %.2f s, %.0f MB/s, %zu records\n", saxS, mb / saxS, saxRecords);
    std::printf("simdjson On-Demand:       %.2f s, %.0f MB/s, %zu records (%zu lines left to the tolerant path)\n",
        fastS, mb / fastS, fastRecords, lines.size() - fastRecords);
    std::printf("simdjson / nlohmann: %.2fx faster; records that differ (every 97th line checked): %zu\n", saxS / fastS,
        mismatches);
    return 0;
}
