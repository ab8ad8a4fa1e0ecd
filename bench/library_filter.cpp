// The run library at 10,000 run files (docs/library.md): how long a filter takes
// through RunCatalogue::rows() (`knobscope runs --where`), and as the Runs page
// filters, catalogueRowMatches() over the rows it read once, against a floor: a
// hand-written test of the same condition over the same rows. Prints numbers and
// ratios; asserts nothing.
//   library_filter [FILES]   (default 10000 files of 3 configuration-arms each)
#include "library/cataloguematch.h"
#include "library/runcatalogue.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace ks;

namespace {

const char* const kModels[] = { "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B", "sim-1.8b", "sim-8b", "Qwen/Qwen3-1.7B" };
const char* const kHosts[] = { "ws-01", "ws-02", "gpu-box", "laptop" };
const char* const kArms[] = { "fixed", "poisson", "stress" };

CatalogueFile fileNumber(int i)
{
    CatalogueFile f;
    f.path = QStringLiteral("/runs/day-%1/run-%2.jsonl").arg(i / 100).arg(i);
    f.size = 100000 + i;
    f.sha256 = QString::number(i);
    f.specName = QStringLiteral("spec-%1").arg(i % 40);
    f.host = QString::fromLatin1(kHosts[i % 4]);
    f.serverVersions = QStringLiteral("vllm 0.%1.0").arg(8 + i % 5);
    f.startedAt = QDateTime::fromSecsSinceEpoch(1764000000 + qint64(i) * 600, Qt::UTC).toString(Qt::ISODate);
    for (int a = 0; a < 3; ++a) {
        CatalogueArm arm;
        arm.config = QStringLiteral("mns%1").arg(16 << (i % 4));
        arm.arm = QString::fromLatin1(kArms[a]);
        arm.model = QString::fromLatin1(kModels[i % 5]);
        arm.knobs = QStringLiteral("{\"max_num_seqs\":%1}").arg(16 << (i % 4));
        arm.requests = 256;
        arm.ttftP50 = { 40.0 + i % 97, 39.0, 41.0 + i % 97 };
        arm.ttftP99 = { 400.0 + i % 89, 380.0, 420.0 };
        arm.reqPerS = 10.0 + i % 7;
        f.arms.push_back(arm);
    }
    return f;
}

double medianMs(const std::function<std::size_t()>& run, std::size_t* rows)
{
    std::vector<double> ms;
    for (int i = 0; i < 7; ++i) {
        QElapsedTimer t;
        t.start();
        *rows = run();
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const int files = argc > 1 ? std::max(1, atoi(argv[1])) : 10000;
    QTemporaryDir dir;
    QString error;
    auto catalogue = RunCatalogue::open(dir.filePath(QStringLiteral("bench.sqlite")), &error);
    if (!catalogue) {
        std::fprintf(stderr, "library_filter: %s\n", qPrintable(error));
        return 1;
    }
    QElapsedTimer fill;
    fill.start();
    for (int i = 0; i < files; ++i) {
        if (!catalogue->add(fileNumber(i), &error)) {
            std::fprintf(stderr, "library_filter: %s\n", qPrintable(error));
            return 1;
        }
    }
    const double fillMs = double(fill.nsecsElapsed()) / 1e6;
    std::printf("%d files, %d configuration-arms: catalogued in %.0f ms (%.2f ms a file, one transaction each)\n",
        files, files * 3, fillMs, fillMs / files);
    std::size_t loaded = 0;
    std::vector<CatalogueRow> memory;
    const double loadMs = medianMs(
        [&] {
            memory = catalogue->rows({}, &error);
            return memory.size();
        },
        &loaded);
    std::printf(
        "the Runs page reads every row once (on opening, and after a run is catalogued): %.0f ms for %zu rows\n",
        loadMs, loaded);

    struct Case {
        const char* name;
        QStringList where;
        std::function<bool(const CatalogueRow&)> match;
    };
    const std::vector<Case> cases {
        { "everything", {}, [](const CatalogueRow&) { return true; } },
        { "model=llama", { QStringLiteral("model=llama") },
            [](const CatalogueRow& r) { return r.arm.model.contains(QLatin1String("llama"), Qt::CaseInsensitive); } },
        { "knob.max_num_seqs=32 arm=stress", { QStringLiteral("knob.max_num_seqs=32"), QStringLiteral("arm=stress") },
            [](const CatalogueRow& r) {
                return r.arm.knobs.contains(QLatin1String(":32}")) && r.arm.arm.contains(QLatin1String("stress"));
            } },
        { "text 'gpu-box'", { QStringLiteral("gpu-box") },
            [](const CatalogueRow& r) { return r.file.host.contains(QLatin1String("gpu-box"), Qt::CaseInsensitive); } },
        { "since=2026-01-01 host=ws-01", { QStringLiteral("since=2026-01-01"), QStringLiteral("host=ws-01") },
            [](const CatalogueRow& r) {
                return r.file.startedAt >= QLatin1String("2026-01-01") && r.file.host.contains(QLatin1String("ws-01"));
            } },
    };
    std::printf(
        "%-34s %8s %12s %14s %10s %12s\n", "filter", "rows", "library ms", "Runs page ms", "floor ms", "page/floor");
    for (const Case& c : cases) {
        CatalogueFilter filter;
        if (!parseCatalogueFilter(c.where, &filter, &error)) {
            std::fprintf(stderr, "library_filter: %s\n", qPrintable(error));
            return 1;
        }
        std::size_t fromLibrary = 0, fromPage = 0, fromMemory = 0;
        const double libraryMs = medianMs([&] { return catalogue->rows(filter, &error).size(); }, &fromLibrary);
        const double pageMs = medianMs(
            [&] {
                std::vector<int> shown;
                for (int i = 0; i < int(memory.size()); ++i)
                    if (catalogueRowMatches(memory[std::size_t(i)], filter))
                        shown.push_back(i);
                return shown.size();
            },
            &fromPage);
        const double memoryMs = medianMs(
            [&] {
                std::vector<const CatalogueRow*> hits;
                for (const CatalogueRow& r : memory)
                    if (c.match(r))
                        hits.push_back(&r);
                return hits.size();
            },
            &fromMemory);
        std::printf("%-34s %8zu %12.1f %14.1f %10.2f %11.1fx%s\n", c.name, fromLibrary, libraryMs, pageMs, memoryMs,
            pageMs / std::max(memoryMs, 1e-3),
            fromLibrary == fromMemory && fromPage == fromMemory ? "" : "  (row counts differ!)");
    }
    return 0;
}
