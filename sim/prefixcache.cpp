#include "prefixcache.h"

namespace kssim {

int PrefixCache::cachedBlocks(const std::vector<std::uint64_t>& blocks) const
{
    int n = 0;
    while (n < int(blocks.size()) && m_index.contains(blocks[std::size_t(n)]))
        ++n;
    return n;
}

void PrefixCache::insert(const std::vector<std::uint64_t>& blocks)
{
    // Last first, so the prompt's first blocks (shared most widely) are the most recent.
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
        insertOne(*it);
}

void PrefixCache::insertOne(std::uint64_t key)
{
    if (m_capacity <= 0)
        return;
    if (auto it = m_index.find(key); it != m_index.end()) {
        m_order.splice(m_order.begin(), m_order, it->second);
        return;
    }
    m_order.push_front(key);
    m_index.emplace(key, m_order.begin());
    if (int(m_order.size()) > m_capacity) {
        m_index.erase(m_order.back());
        m_order.pop_back();
    }
}

} // namespace kssim
