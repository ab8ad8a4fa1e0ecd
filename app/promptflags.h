#pragma once

#include "workload/loadspec.h"

#include <QCommandLineParser>

#include <nlohmann/json.hpp>

/// The prompt flags of `knobscope run` without a spec: the same choices as a
/// spec's `prompts` (docs/experiments.md), read by the same parser.
void addPromptFlags(QCommandLineParser& parser);
/// Fills spec.prompts and spec.maxTokensDist; `promptsJson` gets the `prompts`
/// object the flags amount to, for the run file's experiment line. Returns an
/// error naming the flag, or empty.
QString readPromptFlags(const QCommandLineParser& parser, ks::LoadSpec& spec, nlohmann::json* promptsJson);
