#include "workload/traceprompt.h"

#include "workload/syntheticprompt.h"

#include <algorithm>
#include <iterator>
#include <random>

namespace ks {

namespace {
const char* const kBlockWords[] = { "amber", "basil", "cedar", "delta", "ember", "fjord", "grove", "harbor", "inlet",
    "jasper", "kelp", "lagoon", "meadow", "nectar", "orchid", "prairie" };

// Base 36, at most 7 digits: with the leading "b" one word of at most 8 bytes.
QByteArray blockName(quint64 id)
{
    constexpr quint64 kSpan = 78'364'164'096ULL; // 36^7
    return "b" + QByteArray::number(qulonglong(id % kSpan), 36);
}
} // namespace

QByteArray traceBlockText(quint64 seed, quint64 id, int words)
{
    words = std::clamp(words, 0, TraceIndex::kBlockTokens);
    if (words == 0)
        return {};
    std::mt19937_64 rng((seed + 0x7261636bULL) * 0x9e3779b97f4a7c15ULL ^ id);
    QByteArray out = blockName(id);
    out.reserve(words * 7);
    for (int i = 1; i < words; ++i) {
        out += ' ';
        out += kBlockWords[rng() % std::size(kBlockWords)];
    }
    return out;
}

QByteArray tracePrompt(const TraceIndex& trace, std::size_t index, quint64 seed)
{
    const TraceEntry& e = trace.entries[index];
    const quint64* ids = trace.hashesOf(e);
    QByteArray out;
    int left = e.inputLen;
    for (quint32 i = 0; i < e.hashCount && left > 0; ++i) {
        const int words = std::min(left, TraceIndex::kBlockTokens);
        if (!out.isEmpty())
            out += ' ';
        out += traceBlockText(seed, ids[i], words);
        left -= words;
    }
    if (left > 0) {
        if (!out.isEmpty())
            out += ' ';
        out += syntheticPrompt(seed, qint64(index), left);
    }
    return out;
}

} // namespace ks
