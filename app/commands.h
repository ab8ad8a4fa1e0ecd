#pragma once

#include <QStringList>

// Each subcommand takes its arguments (argv[0] and the subcommand name removed
// from the front, the program name put back) and returns the process exit code:
// 0 success, 1 a run completed with errors above the threshold, 2 bad usage or input.
int runCommand(const QStringList& arguments);
int reportCommand(const QStringList& arguments);
int calibrateCommand(const QStringList& arguments);
int compareCommand(const QStringList& arguments);
int driftCommand(const QStringList& arguments);
int mergeCommand(const QStringList& arguments);
/// `knobscope import`: vLLM, GuideLLM and AIPerf results as a knobscope run file.
int importCommand(const QStringList& arguments);
/// `knobscope runs`: the run library, listed or rescanned (docs/library.md).
int runsCommand(const QStringList& arguments);
/// `knobscope runs trend ... --out FILE`: runsCommand under an offscreen QApplication.
int runsChartMain(int argc, char** argv);
/// `knobscope export RUNS.jsonl --vllm-json DIR`: no display needed, unlike the chart exports.
int exportVllmCommand(const QStringList& arguments);
/// The dashboard (QApplication); argc/argv untouched.
int guiMain(int argc, char** argv);
/// `knobscope export`: charts and tables drawn offscreen.
int exportMain(int argc, char** argv);
