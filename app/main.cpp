#include "commands.h"

#include <QCoreApplication>

#include <cstdio>

namespace {

const char* const kUsage = R"(knobscope: benchmark LLM inference servers

usage:
  knobscope [SPEC.json] [--run]             open the dashboard
  knobscope open RUNS.jsonl                  open the dashboard replaying a saved run
  knobscope export RUNS.jsonl --chart ttft|tpot|itl|e2e|throughput|cdf-ttft|drift --out FILE.png|svg|pdf
                   [--arm A] [--size WxH] | --table FILE.csv|md | --report DIR
  knobscope run --base-url URL --model M [load flags] --out RUNS.jsonl
  knobscope run SPEC.json --out RUNS.jsonl
  knobscope report RUNS.jsonl [--json]
  knobscope compare RUNS.jsonl [--baseline LABEL] [--json | --format md|csv]
  knobscope drift RUNS.jsonl [OTHER.jsonl] [--json]
  knobscope calibrate [--concurrency C] [--requests N] [--max-tokens T]

'knobscope COMMAND --help' describes each command.
)";

} // namespace

int main(int argc, char** argv)
{
    // No subcommand (or a spec file, or only options): the dashboard.
    const QByteArray first = argc > 1 ? QByteArray(argv[1]) : QByteArray();
    static const QList<QByteArray> subcommands
        = { "run", "report", "compare", "drift", "calibrate", "open", "export", "--help", "-h", "--version" };
    if (!subcommands.contains(first))
        return guiMain(argc, argv);
    if (first == "open")
        return guiMain(argc, argv);
    if (first == "export")
        return exportMain(argc, argv);

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
    std::fprintf(stderr, "knobscope: unknown command '%s'\n\n%s", qPrintable(command), kUsage);
    return 2;
}
