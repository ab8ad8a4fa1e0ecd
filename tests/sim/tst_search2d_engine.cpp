// The two-knob search against the exhaustive grid a user would write, both on
// knobscope-sim's engine (its virtual clock: the same scheduler and step model
// as over sockets, no sockets): the bundled knob-search-2d workload scaled down
// to 960 requests a point (about 50 s of engine time). The search gets a third of the grid's points and
// must come within 5 % of the grid's best goodput, or hold the grid's best on
// its plateau; over real sockets: bench/search_vs_grid.py.
#include "experiment/multiknobsearch.h"
#include "virtualload.h"

#include <QTest>

#include <cmath>

using namespace kssim;

namespace {

struct Figure {
    double goodput = 0;
    double halfWidth = 0;
};

Figure measure(double seqs, double batched, std::uint64_t seed)
{
    EngineConfig cfg;
    cfg.profile = *findProfile(QStringLiteral("sim-1.8b"));
    cfg.maxNumSeqs = int(seqs);
    cfg.maxNumBatchedTokens = int(batched);
    cfg.kvCacheTokens = cfg.profile.kvCacheTokens;
    cfg.stepJitter = 0.03;
    cfg.jitterSeed = seed;
    const VirtualLoadResult r = runClosedLoop(cfg, VirtualLoadSpec { 96, 960, 512, 128, 2000 });
    const double goodput = goodputOf(r, 20.5);
    return { goodput, goodput * 0.05 }; // about what a 10-s probe's bootstrap gives
}

} // namespace

class TestSearch2dEngine : public QObject {
    Q_OBJECT

private slots:
    void searchAgainstTheGrid()
    {
        double gridBest = 0;
        int gridPoints = 0;
        for (double seqs : { 8, 16, 32, 64, 128, 256 })
            for (double batched : { 512, 1024, 2048, 4096, 8192 }) {
                gridBest = std::max(gridBest, measure(seqs, batched, 1).goodput);
                ++gridPoints;
            }
        QVERIFY(gridBest > 5); // the workload is not starved: the comparison means something
        for (std::uint64_t seed : { 2, 3, 4 }) {
            ks::SearchSpec spec;
            spec.knobs = { { QStringLiteral("max_num_batched_tokens"), 512, 8192, true, true, false },
                { QStringLiteral("max_num_seqs"), 8, 256, true, true, false } };
            spec.budget = gridPoints / 3;
            ks::MultiKnobSearch search(spec);
            while (const auto point = search.next()) {
                const Figure f = measure((*point)[1], (*point)[0], seed * 100 + search.probes().size());
                ks::SearchProbe p;
                p.point = *point;
                p.objective = f.goodput;
                p.low = f.goodput - f.halfWidth;
                p.high = f.goodput + f.halfWidth;
                search.addProbe(p);
            }
            const ks::MultiSearchResult r = search.result();
            QVERIFY(r.probes.size() <= std::size_t(gridPoints / 3));
            QVERIFY(r.top && r.recommended);
            const double top = *r.probes[*r.top].objective;
            QVERIFY2(top >= 0.95 * gridBest,
                qPrintable(QStringLiteral("seed %1: top %2 against the grid's %3").arg(seed).arg(top).arg(gridBest)));
            // The recommendation is on the plateau and no dearer than the top.
            QVERIFY(search.cost(r.probes[*r.recommended].point) <= search.cost(r.probes[*r.top].point));
        }
    }
};

QTEST_GUILESS_MAIN(TestSearch2dEngine)
#include "tst_search2d_engine.moc"
