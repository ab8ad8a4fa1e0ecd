#include "prefixcache.h"

namespace kssim {

void PrefixCache::insert(std::uint64_t key)
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
