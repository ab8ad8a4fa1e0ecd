#pragma once

#include <QByteArray>

namespace ks {

/// The prompt of request `index` when the workload gives none: `words` short
/// words, distinct per (seed, index) from the first word on, so no two requests
/// share a cached prefix. Each word is at most 8 bytes: one token for
/// knobscope-sim and usually one or two for real tokenizers.
QByteArray syntheticPrompt(quint64 seed, qint64 index, int words);

} // namespace ks
