#include "commands.h"

#include <QCoreApplication>

#include <cstdio>

namespace {

const char* const kUsage = R"(knobscope: benchmark LLM inference servers

usage:
  knobscope run --base-url URL --model M [load flags] --out RUNS.jsonl
  knobscope run SPEC.json --out RUNS.jsonl
  knobscope report RUNS.jsonl [--json]
  knobscope compare RUNS.jsonl [--baseline LABEL] [--json | --format md|csv]
  knobscope drift RUNS.jsonl [OTHER.jsonl] [--json]
  knobscope calibrate [--concurrency C] [--requests N] [--max-tokens T]

'knobscope COMMAND --help' describes each command. Not built yet: the dashboard,
'open' and 'export'.
)";

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("knobscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KNOBSCOPE_VERSION));
    QStringList args = QCoreApplication::arguments();
    const QString command = args.value(1);
    if (command.isEmpty() || command == QLatin1String("--help") || command == QLatin1String("-h")) {
        std::fputs(kUsage, command.isEmpty() ? stderr : stdout);
        return command.isEmpty() ? 2 : 0;
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
