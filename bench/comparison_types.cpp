// What the typed comparison costs beside the comparison itself: compare's JSON
// as the core assembles it, read into the types (comparisonFromJson) and
// written back (comparisonToJson, what `compare --json` and the loader's JSON
// copy pay), against the assembly without intervals (the cheapest comparison:
// the Compare page's first view) and with 1000-resample intervals. CPU time of
// this one thread, best of N; asserts nothing but that the bytes round-trip.
//
//   comparison_types FILE.jsonl [N]
#include "compare/comparison.h"

#include <cstdio>
#include <ctime>
#include <functional>

namespace {

double cpuS()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

double bestOf(int n, const std::function<void()>& work)
{
    double best = 1e9;
    for (int i = 0; i < n; ++i) {
        const double start = cpuS();
        work();
        best = std::min(best, cpuS() - start);
    }
    return best;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fputs("usage: comparison_types FILE.jsonl [N]\n", stderr);
        return 2;
    }
    const int n = argc > 2 ? std::atoi(argv[2]) : 5;
    ks::RunFile file;
    QString error;
    if (!ks::readRunFile(QString::fromLocal8Bit(argv[1]), &file, &error)) {
        std::fprintf(stderr, "comparison_types: %s\n", qPrintable(error));
        return 2;
    }
    ks::CompareOptions quick;
    quick.resamples = 0;
    nlohmann::json assembly;
    const double assemble = bestOf(n, [&] { assembly = ks::comparisonAssembly(file, quick, &error); });
    ks::Comparison typed;
    const double read = bestOf(n, [&] { typed = ks::comparisonFromJson(assembly); });
    nlohmann::json written;
    const double write = bestOf(n, [&] { written = ks::comparisonToJson(typed); });
    const double full = bestOf(1, [&] { (void)ks::comparisonAssembly(file, {}, &error); });
    std::size_t configs = 0;
    for (const ks::ComparedArm& arm : typed)
        configs += arm.configs.size();
    std::printf(
        "%zu arms, %zu configurations, %zu bytes of compare --json\n", typed.size(), configs, assembly.dump().size());
    std::printf(
        "assembly without intervals %.2f ms; with 1000-resample intervals %.0f ms\n", assemble * 1e3, full * 1e3);
    std::printf("read into the types %.2f ms (%.2fx the assembly without intervals, %.4fx with)\n", read * 1e3,
        read / assemble, read / full);
    std::printf("written back %.2f ms (%.2fx, %.4fx); the same bytes: %s\n", write * 1e3, write / assemble,
        write / full, written.dump() == assembly.dump() ? "yes" : "NO");
    return written.dump() == assembly.dump() ? 0 : 1;
}
