#pragma once

#include <QByteArrayView>

#include <cstdint>
#include <vector>

namespace kssim {

/// The KV blocks of a prompt as the prefix cache names them: the simulator's
/// tokens (whitespace-separated words, long words per 8 bytes, the same count as
/// countTokens) hashed one by one, every kBlockTokens of them chained into a
/// block hash. Only full blocks are cached, as in vLLM.
class PromptBlocks {
public:
    static constexpr int kBlockTokens = 16;

    void addText(QByteArrayView utf8);
    void addToken(std::uint64_t tokenHash);
    int tokens() const { return m_tokens; }
    const std::vector<std::uint64_t>& blocks() const { return m_blocks; }
    std::vector<std::uint64_t> takeBlocks() { return std::move(m_blocks); }

private:
    std::vector<std::uint64_t> m_blocks;
    std::uint64_t m_running = 0; ///< hash of the block being filled, chained to the last full one
    int m_inBlock = 0;
    int m_tokens = 0;
};

} // namespace kssim
