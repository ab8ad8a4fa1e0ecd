#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>

namespace kssim {

/// LRU set of prompt hashes whose KV blocks are cached (vLLM's automatic prefix
/// caching, at whole-prompt granularity). Capacity 0 disables it.
class PrefixCache {
public:
    explicit PrefixCache(int capacity)
        : m_capacity(capacity)
    {
    }

    bool contains(std::uint64_t key) const { return m_index.contains(key); }
    void insert(std::uint64_t key);

private:
    int m_capacity;
    std::list<std::uint64_t> m_order; // most recent first
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> m_index;
};

} // namespace kssim
