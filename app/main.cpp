#include "commands.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

const char* const kUsage = R"(knobscope: benchmark LLM inference servers

usage:
  knobscope [SPEC.json] [--run]             open the dashboard
  knobscope open RUNS.jsonl [--baseline OTHER.jsonl]   open the dashboard replaying a saved run
  knobscope export RUNS.jsonl --chart ttft|tpot|itl|e2e|throughput|cdf-ttft|knee|drift --out FILE.png|svg|pdf
                   [--arm A] [--size WxH] | --table FILE.csv|md | --report DIR | --html FILE.html
  knobscope export RUNS.jsonl --chart live-ttft|live-tpot|... [--baseline OTHER.jsonl] --out FILE.png
                   the Live page's chart over experiment time, a baseline run faded beneath
  knobscope run --base-url URL --model M [load flags] --out RUNS.jsonl
  knobscope run SPEC.json --out RUNS.jsonl [--metrics-port P [--metrics-host ADDR]]
  knobscope run SPEC.json --shard I/N [--start-at TIME] --out part-I.jsonl   (external server only)
  knobscope run SPEC.json --aa N [--baseline LABEL] --out CAL.jsonl  A/A calibration: the baseline N times
  knobscope merge part-*.jsonl --out RUNS.jsonl   summaries recomputed from the records, never averaged
  knobscope report RUNS.jsonl [--json] [--slo-ttft-ms X] [--slo-tpot-ms Y]
  knobscope compare RUNS.jsonl [OTHER.jsonl] [--baseline LABEL] [--json | --format md|csv] [--slo-ttft-ms X]
                    [--calibration AA.jsonl]   an A/A calibration for arms that ran once on a side
  knobscope drift RUNS.jsonl [OTHER.jsonl] [--json]
  knobscope calibrate [--concurrency C] [--requests N] [--max-tokens T]
  knobscope import RESULT.json... --out RUNS.jsonl   vLLM bench serve, GuideLLM or AIPerf results (by content)
  knobscope export RUNS.jsonl --vllm-json DIR        one vLLM-format result JSON per run
  knobscope runs [--where TERM]... [--json]        the run library: every run catalogued, newest first
  knobscope runs rescan DIR                        catalogue the run files under DIR (rebuilds the library)
  knobscope runs trend SPEC CONFIG ARM [--metric M] [--json] [--out FILE.png|svg|pdf]
                   one configuration across its catalogued runs, with change points
  knobscope compare @ID @ID ...                    catalogued configuration-arms from any files

report, compare and open also read vLLM, GuideLLM and AIPerf results directly (docs/formats.md).

'knobscope COMMAND --help' describes each command.
)";

// The subcommand closest to a mistyped one (edit distance at most 2), or empty.
QString closestCommand(const QString& typed, const QStringList& commands)
{
    QString best;
    qsizetype bestDistance = 3;
    for (const QString& command : commands) {
        std::vector<qsizetype> row(std::size_t(command.size()) + 1);
        for (qsizetype j = 0; j <= command.size(); ++j)
            row[std::size_t(j)] = j;
        for (qsizetype i = 1; i <= typed.size(); ++i) {
            qsizetype diagonal = row[0];
            row[0] = i;
            for (qsizetype j = 1; j <= command.size(); ++j) {
                const qsizetype up = row[std::size_t(j)];
                row[std::size_t(j)] = std::min(
                    { up + 1, row[std::size_t(j - 1)] + 1, diagonal + (typed[i - 1] == command[j - 1] ? 0 : 1) });
                diagonal = up;
            }
        }
        if (row.back() < bestDistance) {
            bestDistance = row.back();
            best = command;
        }
    }
    return best;
}

int usageError(const QString& message)
{
    std::fprintf(stderr, "knobscope: %s\n\n%s", qPrintable(message), kUsage);
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    // The dashboard opens with no arguments, a spec (.json), a run file
    // (.jsonl or 'open FILE'), or only its own options (--run, --shot, ...).
    // Anything else is a subcommand, and an unknown one is a usage error.
    const QString first = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    static const QStringList commands = { QStringLiteral("run"), QStringLiteral("report"), QStringLiteral("compare"),
        QStringLiteral("drift"), QStringLiteral("calibrate"), QStringLiteral("export"), QStringLiteral("open"),
        QStringLiteral("merge"), QStringLiteral("import"), QStringLiteral("runs") };
    const bool cliFlag
        = first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("--version");
    if (first.isEmpty() || (first.startsWith(QLatin1Char('-')) && !cliFlag))
        return guiMain(argc, argv);
    if (first == QLatin1String("open") || first.endsWith(QLatin1String(".json"))
        || first.endsWith(QLatin1String(".jsonl"))) {
        const QString file
            = first == QLatin1String("open") ? (argc > 2 ? QString::fromLocal8Bit(argv[2]) : QString()) : first;
        if (file.isEmpty() || file.startsWith(QLatin1Char('-')))
            return usageError(QStringLiteral("open: give a run file (RUNS.jsonl)"));
        if (!QFileInfo(file).isFile()) {
            std::fprintf(stderr, "knobscope: no such file: %s\n", qPrintable(file));
            return 2;
        }
        return guiMain(argc, argv);
    }
    bool vllmExport = false;
    for (int i = 2; i < argc; ++i)
        vllmExport = vllmExport || QByteArrayView(argv[i]).startsWith("--vllm-json");
    if (first == QLatin1String("export") && !vllmExport)
        return exportMain(argc, argv);
    if (first == QLatin1String("runs"))
        for (int i = 2; i < argc; ++i)
            if (QByteArrayView(argv[i]).startsWith("--out"))
                return runsChartMain(argc, argv); // a chart needs a QApplication (QCustomPlot draws with QtGui)
    if (!commands.contains(first) && !cliFlag) {
        const QString guess = closestCommand(first, commands);
        return usageError(
            QStringLiteral("unknown command '%1'%2")
                .arg(first, guess.isEmpty() ? QString() : QStringLiteral(" (did you mean '%1'?)").arg(guess)));
    }

    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("knobscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KNOBSCOPE_VERSION));
    QStringList args = QCoreApplication::arguments();
    const QString command = args.value(1);
    if (command == QLatin1String("--help") || command == QLatin1String("-h")) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (command == QLatin1String("--version")) {
        std::printf("knobscope %s\n", KNOBSCOPE_VERSION);
        return 0;
    }
    args.removeAt(1);
    args[0] = QStringLiteral("knobscope ") + command;
    if (command == QLatin1String("run"))
        return runCommand(args);
    if (command == QLatin1String("report"))
        return reportCommand(args);
    if (command == QLatin1String("calibrate"))
        return calibrateCommand(args);
    if (command == QLatin1String("compare"))
        return compareCommand(args);
    if (command == QLatin1String("drift"))
        return driftCommand(args);
    if (command == QLatin1String("merge"))
        return mergeCommand(args);
    if (command == QLatin1String("import"))
        return importCommand(args);
    if (command == QLatin1String("runs"))
        return runsCommand(args);
    if (command == QLatin1String("export"))
        return exportVllmCommand(args);
    return usageError(QStringLiteral("unknown command '%1'").arg(command));
}
