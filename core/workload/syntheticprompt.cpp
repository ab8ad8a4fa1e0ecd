#include "workload/syntheticprompt.h"

#include <iterator>
#include <random>

namespace ks {

namespace {
const char* const kWords[] = { "alpha", "river", "stone", "cloud", "garden", "signal", "number", "engine", "market",
    "winter", "silver", "planet", "yellow", "forest", "bridge", "window" };
}

QByteArray syntheticPrompt(quint64 seed, qint64 index, int words)
{
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + quint64(index));
    QByteArray out = "r" + QByteArray::number(index);
    for (int i = 1; i < words; ++i) {
        out += ' ';
        out += kWords[rng() % std::size(kWords)];
    }
    return out;
}

} // namespace ks
