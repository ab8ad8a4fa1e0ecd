#pragma once

#include <QStringList>

namespace ks {

/// Warnings about a server command that starts a server knobscope can load but
/// not watch: its Prometheus gauges are off, so the queue-depth charts stay
/// empty and the gentle-arm check has no server data. Recognises vLLM
/// (`--disable-log-stats`), SGLang (no `--enable-metrics`) and llama.cpp's
/// llama-server (no `--metrics`); other commands get none.
QStringList serverCommandWarnings(const QStringList& argv);

} // namespace ks
