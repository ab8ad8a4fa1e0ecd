// Runs the search over --max-num-seqs and --max-num-batched-tokens against
// knobscope-sim's engine on its virtual clock (an ideal client, no sockets),
// several seeds of step jitter, beside the exhaustive grid: how close the
// search's recommendation and top come to the grid's best, from how many probes.
// Seconds instead of the hour the same over real sockets takes; the real runs
// are in docs/experiments.md ("Search over several knobs").
//   search_landscape [--budget N] [--seeds N] [--seqs 8,256] [--batched 256,16384]
//                    [--grid-seqs 16,24,...] [--grid-batched 512,...] [--tolerance F]
#include "experiment/multiknobsearch.h"
#include "virtualload.h"

#include <QCoreApplication>
#include <QStringList>

#include <chrono>
#include <cmath>
#include <cstdio>

using namespace kssim;

namespace {

struct Figure {
    double goodput = 0;
    double halfWidth = 0;
};

// Goodput (requests within TPOT <= 20.5 ms per second) of the bundled 2-D workload: 96 streams,
// 512-token prompts, 128-token outputs, sim-1.8b.
Figure measure(int seqs, int batched, std::uint64_t seed)
{
    EngineConfig cfg;
    cfg.profile = *findProfile(QStringLiteral("sim-1.8b"));
    cfg.maxNumSeqs = seqs;
    cfg.maxNumBatchedTokens = batched;
    cfg.kvCacheTokens = cfg.profile.kvCacheTokens;
    cfg.stepJitter = 0.03;
    cfg.jitterSeed = seed;
    const VirtualLoadResult r = runClosedLoop(cfg, VirtualLoadSpec { 96, 960, 512, 128, 2000 });
    Figure f;
    f.goodput = goodputOf(r, 20.5);
    // A Poisson-count interval on the requests that met the SLO: wider than a long closed loop's.
    const double met = r.requestsPerSecond > 0 ? f.goodput / r.requestsPerSecond * double(r.tpotMs.size()) : 0;
    f.halfWidth = f.goodput * 1.96 / std::sqrt(std::max(met, 1.0));
    return f;
}

std::vector<int> listOf(const QString& text)
{
    std::vector<int> out;
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out.push_back(part.toInt());
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int budget = 12, seeds = 5;
    double tolerance = 0.02;
    QString seqs = QStringLiteral("8,128"), batched = QStringLiteral("512,16384");
    QString gridSeqs = QStringLiteral("16,24,32,40,48,56,64,72"),
            gridBatched = QStringLiteral("512,1024,2048,4096,8192,16384");
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        const QString& key = args[i];
        const QString& value = args[i + 1];
        if (key == QLatin1String("--budget"))
            budget = value.toInt();
        else if (key == QLatin1String("--seeds"))
            seeds = value.toInt();
        else if (key == QLatin1String("--seqs"))
            seqs = value;
        else if (key == QLatin1String("--batched"))
            batched = value;
        else if (key == QLatin1String("--grid-seqs"))
            gridSeqs = value;
        else if (key == QLatin1String("--grid-batched"))
            gridBatched = value;
        else if (key == QLatin1String("--tolerance"))
            tolerance = value.toDouble();
        else {
            std::fprintf(stderr, "search_landscape: unknown option %s\n", qPrintable(key));
            return 2;
        }
    }
    double gridBest = 0;
    int gridSeqsBest = 0, gridBatchedBest = 0, gridStarts = 0;
    for (int s : listOf(gridSeqs))
        for (int b : listOf(gridBatched)) {
            const Figure f = measure(s, b, 1);
            ++gridStarts;
            if (f.goodput > gridBest) {
                gridBest = f.goodput;
                gridSeqsBest = s;
                gridBatchedBest = b;
            }
        }
    std::printf("grid: %d points, best max_num_seqs=%d max_num_batched_tokens=%d at %.2f req/s\n", gridStarts,
        gridSeqsBest, gridBatchedBest, gridBest);
    const std::vector<int> seqRange = listOf(seqs), batchedRange = listOf(batched);
    int within = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
        ks::SearchSpec spec;
        spec.knobs = { { QStringLiteral("max_num_batched_tokens"), double(batchedRange[0]), double(batchedRange[1]),
                           true, true, false },
            { QStringLiteral("max_num_seqs"), double(seqRange[0]), double(seqRange[1]), true, true, false } };
        spec.budget = budget;
        spec.tolerance = tolerance;
        ks::MultiKnobSearch search(spec);
        QStringList order;
        double choosingMs = 0;
        for (;;) {
            const auto began = std::chrono::steady_clock::now();
            const auto point = search.next();
            choosingMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
            if (!point)
                break;
            const Figure f
                = measure(int((*point)[1]), int((*point)[0]), std::uint64_t(seed) * 1000 + search.probes().size());
            ks::SearchProbe p;
            p.point = *point;
            p.objective = f.goodput;
            p.low = f.goodput - f.halfWidth;
            p.high = f.goodput + f.halfWidth;
            search.addProbe(p);
            order << QStringLiteral("(%1,%2)=%3").arg((*point)[1]).arg((*point)[0]).arg(f.goodput, 0, 'f', 1);
        }
        const ks::MultiSearchResult r = search.result();
        const auto& rec = r.probes[*r.recommended];
        const auto& top = r.probes[*r.top];
        const bool ok = *top.objective >= 0.95 * gridBest || *rec.objective >= 0.95 * gridBest;
        within += ok;
        std::printf("seed %d: %zu probes (%s, %.1f ms choosing them); recommended (%g, %g) %.2f, top (%g, %g) %.2f = "
                    "%.3f of the grid's best%s\n"
                    "  %s\n",
            seed, r.probes.size(), qPrintable(r.stop), choosingMs, rec.point[1], rec.point[0], *rec.objective,
            top.point[1], top.point[0], *top.objective, *top.objective / gridBest, ok ? "" : "  MISSED",
            qPrintable(order.join(QLatin1Char(' '))));
    }
    std::printf("within 5 %% of the grid's best: %d of %d seeds, %d probes against %d grid points (%.2f)\n", within,
        seeds, budget, gridStarts, double(budget) / gridStarts);
    return 0;
}
