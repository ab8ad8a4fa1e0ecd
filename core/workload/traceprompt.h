#pragma once

#include "workload/tracereader.h"

#include <QByteArray>

namespace ks {

/// The text of trace block `id`: `words` words (at most TraceIndex::kBlockTokens)
/// of one knobscope-sim token each, a pure function of (seed, id), so equal ids
/// give identical text and a shorter block is the start of the full one.
QByteArray traceBlockText(quint64 seed, quint64 id, int words);

/// The prompt of entry `index`: its hash ids' blocks in order, cut to its input
/// length; tokens past its blocks (or all of them, without hash ids) are words
/// of its own, so no other request shares them.
QByteArray tracePrompt(const TraceIndex& trace, std::size_t index, quint64 seed);

} // namespace ks
