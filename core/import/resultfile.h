#pragma once

#include "store/runfile.h"

#include <QString>

namespace ks {

enum class ResultFormat { Unknown, Knobscope, Vllm, GuideLlm, AiperfSummary, AiperfRecords };

/// What a file is, judged by its content (never its name): a knobscope run
/// file, a vLLM bench serve result (one object, or one per line), a GuideLLM
/// benchmarks report, or AIPerf's summary JSON or per-request JSONL.
ResultFormat detectResultFormat(const QString& path, QString* error);
QString resultFormatName(ResultFormat format);

/// Reads a knobscope run file (readRunFile) or imports another tool's result
/// into the same structures: the one entry point of report, compare and the
/// dashboard for "a file of runs". For AIPerf, `profile_export.jsonl` and
/// `profile_export_aiperf.json` beside each other are read together. Returns
/// false only when the file cannot be read or its format is unknown; bad
/// content becomes numbered issues.
bool readAnyRunFile(const QString& path, RunFile* out, QString* error, const ReadProgress& progress = {});

} // namespace ks
