#pragma once

#include "metrics/runsummary.h"
#include "store/runline.h"
#include "workload/loadspec.h"

#include <QCommandLineParser>

#include <optional>

/// The load flags shared by `run` and `calibrate` (docs/formats.md).
void addLoadFlags(QCommandLineParser& parser);
/// Fills `spec` from parsed flags; returns an error naming the flag, or empty.
QString readLoadFlags(const QCommandLineParser& parser, ks::LoadSpec& spec);

/// Parses `arguments`; prints the help text or the error (prefixed with
/// `command`). Returns the exit code when the command should end now.
std::optional<int> parseOrExit(QCommandLineParser& parser, const QStringList& arguments, const char* command);

/// --slo-ttft-ms and --slo-tpot-ms, shared by `report` and `compare`.
void addSloFlags(QCommandLineParser& parser);
/// The SLO to count goodput by: `fromFile` with each flag that is set replacing
/// its part. Returns an error naming the flag, or empty.
QString readSloFlags(const QCommandLineParser& parser, const ks::Slo& fromFile, ks::Slo* slo);

/// Prints a run file's reading issues to stderr ("COMMAND: [FILE ]line N: ..."),
/// the first 20 and then how many more, so a badly broken file stays readable.
void printReadIssues(const char* command, const std::vector<ks::RunFileIssue>& issues, const QString& file = {});
