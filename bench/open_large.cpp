// How long the dashboard needs to open a large run file and show its
// comparison: read + parse (readRunFile), the comparison without intervals
// (what the Compare page shows first), and with 1000-resample intervals (what
// follows). Writes a synthetic file first. Prints numbers; asserts nothing.
//
//   open_large [--requests 1000000] [--tokens 16] [--file /tmp/knobscope-large.jsonl] [--reuse]
#include "compare/comparison.h"
#include "store/jsonlwriter.h"
#include "store/recordjson.h"
#include "store/runfile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <random>

namespace {

double rssMiB()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            double kb = 0;
            status >> kb;
            return kb / 1024.0;
        }
    }
    return 0;
}

// CPU seconds of the whole process (every thread): on a machine shared with
// other work, wall time says more about the neighbours than about the code.
double cpuS()
{
    timespec t {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

void writeFile(const QString& path, int requests, int tokens)
{
    ks::JsonlWriter writer;
    QString error;
    writer.open(path, &error);
    writer.write({ { "type", "experiment" }, { "schema", 1 }, { "spec", { { "name", "large" } } } });
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> ttft(std::log(400e3), 0.4), gap(std::log(25e3), 0.1);
    const char* configs[] = { "a", "b" };
    for (int c = 0; c < 2; ++c) {
        const std::string run = std::string(configs[c]) + "/stress";
        writer.write({ { "type", "run" }, { "run", run }, { "config", configs[c] }, { "arm", "stress" } });
        for (int i = 0; i < requests / 2; ++i) {
            ks::RequestRecord r;
            r.run = QString::fromStdString(run);
            r.id = i;
            r.tSendUs = r.tSchedUs = qint64(i) * 1000;
            r.ttftUs = r.ttfcUs = qint64(ttft(rng) * (c == 0 ? 1.0 : 16.0));
            qint64 t = r.ttftUs;
            for (int k = 1; k < tokens; ++k) {
                const auto g = std::int32_t(gap(rng));
                r.itlUs.push_back(g);
                t += g;
            }
            r.e2eUs = t;
            r.inTokens = 128;
            r.outTokens = tokens;
            r.outTokensFromUsage = true;
            r.status = 200;
            r.ok = true;
            r.outputSha256 = QByteArray(32, '\xaa');
            writer.write(ks::toJson(r));
        }
        writer.write({ { "type", "summary" }, { "run", run }, { "gentle", false } });
    }
    writer.close();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption(
        { QStringLiteral("requests"), QStringLiteral("Requests."), QStringLiteral("N"), QStringLiteral("1000000") });
    parser.addOption(
        { QStringLiteral("tokens"), QStringLiteral("Tokens per request."), QStringLiteral("N"), QStringLiteral("16") });
    parser.addOption({ QStringLiteral("file"), QStringLiteral("Where to write it."), QStringLiteral("PATH"),
        QStringLiteral("/tmp/knobscope-large.jsonl") });
    parser.addOption({ QStringLiteral("reuse"),
        QStringLiteral("Keep the file when it exists (it was written with the same flags).") });
    parser.process(app);
    const QString path = parser.value(QStringLiteral("file"));
    const int requests = parser.value(QStringLiteral("requests")).toInt();
    QElapsedTimer t;
    t.start();
    if (!parser.isSet(QStringLiteral("reuse")) || !QFileInfo::exists(path))
        writeFile(path, requests, parser.value(QStringLiteral("tokens")).toInt());
    std::printf("wrote %d requests, %.0f MiB, in %.1f s\n", requests, double(QFileInfo(path).size()) / 1048576.0,
        double(t.elapsed()) / 1000.0);

    const double rssBefore = rssMiB();
    t.restart();
    double cpu = cpuS();
    ks::RunFile file;
    QString error;
    ks::readRunFile(path, &file, &error);
    const double readS = double(t.elapsed()) / 1000.0;
    const double readCpu = cpuS() - cpu;
    const double rssAfter = rssMiB();
    t.restart();
    cpu = cpuS();
    ks::CompareOptions quick;
    quick.resamples = 0;
    const nlohmann::json first = ks::compareRunsJson(file, quick, &error);
    const double quickS = double(t.elapsed()) / 1000.0;
    const double quickCpu = cpuS() - cpu;
    t.restart();
    cpu = cpuS();
    const nlohmann::json full = ks::compareRunsJson(file, {}, &error);
    const double fullS = double(t.elapsed()) / 1000.0;
    const double fullCpu = cpuS() - cpu;
    std::printf("read + parse: %.2f s; comparison without intervals: %.2f s; first view after %.2f s\n", readS, quickS,
        readS + quickS);
    std::printf("comparison with 1000-resample intervals: %.2f s more\n", fullS);
    std::printf("CPU time: read + parse %.2f s, comparison without intervals %.2f s, with intervals %.2f s\n", readCpu,
        quickCpu, fullCpu);
    std::size_t tableBytes = 0;
    for (const ks::RunData& run : file.runs)
        tableBytes += run.requests.bytes();
    std::printf("memory for the loaded file: %.0f MiB (%.0f bytes per request; the request tables hold %.0f)\n",
        rssAfter - rssBefore, (rssAfter - rssBefore) * 1048576.0 / requests, double(tableBytes) / requests);
    std::printf("TTFT p50 ratio b/a: %.2f\n", first[0]["configs"][1]["ratio"]["ttft_ms"]["p50"].get<double>());
    return 0;
}
