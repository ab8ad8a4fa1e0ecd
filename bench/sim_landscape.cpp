// Prints the goodput landscape of knobscope-sim over --max-num-seqs and
// --max-num-batched-tokens on the engine's virtual clock: what an ideal client
// would measure for every pair, so a two-knob search can be checked against the
// answer (docs/simulator.md, "Two knobs").
//   sim_landscape [--profile P] [--concurrency N] [--requests N] [--prompt N]
//                 [--output N] [--tpot-slo MS] [--ttft-slo MS]
//                 [--seqs 8,16,...] [--batched 256,512,...]
#include "virtualload.h"

#include <QCoreApplication>
#include <QStringList>

#include <cstdio>
#include <vector>

using namespace kssim;

namespace {

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
    QString profile = QStringLiteral("sim-1.8b");
    VirtualLoadSpec load { 96, 960, 512, 128, 2000 };
    double tpotSlo = 20.5, ttftSlo = 0;
    QString seqs = QStringLiteral("8,16,24,32,40,48,56,64,96,128");
    QString batched = QStringLiteral("128,256,384,512,768,1024,2048,4096,8192");
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        const QString& key = args[i];
        const QString& value = args[i + 1];
        if (key == QLatin1String("--profile"))
            profile = value;
        else if (key == QLatin1String("--concurrency"))
            load.concurrency = value.toInt();
        else if (key == QLatin1String("--requests"))
            load.requests = value.toInt();
        else if (key == QLatin1String("--prompt"))
            load.promptTokens = value.toInt();
        else if (key == QLatin1String("--output"))
            load.outputTokens = value.toInt();
        else if (key == QLatin1String("--tpot-slo"))
            tpotSlo = value.toDouble();
        else if (key == QLatin1String("--ttft-slo"))
            ttftSlo = value.toDouble();
        else if (key == QLatin1String("--seqs"))
            seqs = value;
        else if (key == QLatin1String("--batched"))
            batched = value;
        else {
            std::fprintf(stderr, "sim_landscape: unknown option %s\n", qPrintable(key));
            return 2;
        }
    }
    const auto found = findProfile(profile);
    if (!found) {
        std::fprintf(stderr, "sim_landscape: unknown profile %s\n", qPrintable(profile));
        return 2;
    }
    const std::vector<int> seqList = listOf(seqs), batchedList = listOf(batched);
    std::printf("%s, %d streams x %d requests, %d-token prompts, %d-token outputs; SLO TPOT <= %g ms%s\n",
        qPrintable(profile), load.concurrency, load.requests, load.promptTokens, load.outputTokens, tpotSlo,
        ttftSlo > 0 ? qPrintable(QStringLiteral(", TTFT <= %1 ms").arg(ttftSlo)) : "");
    std::printf("goodput (req/s) | rows: max-num-seqs, columns: max-num-batched-tokens\n%6s", "");
    for (int b : batchedList)
        std::printf(" %7d", b);
    std::printf("\n");
    for (int s : seqList) {
        std::printf("%6d", s);
        for (int b : batchedList) {
            EngineConfig cfg;
            cfg.profile = *found;
            cfg.maxNumSeqs = s;
            cfg.maxNumBatchedTokens = b;
            cfg.kvCacheTokens = cfg.profile.kvCacheTokens;
            std::printf(" %7.2f", goodputOf(runClosedLoop(cfg, load), tpotSlo, ttftSlo));
        }
        std::printf("\n");
    }
    return 0;
}
