#include "promptblocks.h"

#include "hashing.h"

namespace kssim {

namespace {
constexpr qsizetype kBytesPerLongToken = 8;
}

void PromptBlocks::addToken(std::uint64_t tokenHash)
{
    if (m_inBlock == 0)
        m_running = m_blocks.empty() ? 0x6b6e6f62ULL : m_blocks.back();
    m_running = combine(m_running, tokenHash);
    ++m_tokens;
    if (++m_inBlock == kBlockTokens) {
        m_blocks.push_back(m_running);
        m_inBlock = 0;
    }
}

void PromptBlocks::addText(QByteArrayView utf8)
{
    qsizetype start = -1;
    auto endWord = [&](qsizetype end) {
        for (qsizetype at = start; at < end; at += kBytesPerLongToken)
            addToken(hashBytes(utf8.sliced(at, std::min(kBytesPerLongToken, end - at))));
        start = -1;
    };
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const char c = utf8[i];
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            if (start >= 0)
                endWord(i);
        } else if (start < 0) {
            start = i;
        }
    }
    if (start >= 0)
        endWord(utf8.size());
}

} // namespace kssim
