#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace kssim {

/// LRU set of cached KV blocks, each named by the hash of its tokens chained to
/// the blocks before it (vLLM's automatic prefix caching): two prompts share a
/// cached block only when every token up to its end is the same. Capacity is in
/// blocks; 0 disables the cache.
class PrefixCache {
public:
    explicit PrefixCache(int capacityBlocks)
        : m_capacity(capacityBlocks)
    {
    }

    /// How many leading blocks of a prompt are cached.
    int cachedBlocks(const std::vector<std::uint64_t>& blocks) const;
    /// Caches a prompt's blocks (most recently used first).
    void insert(const std::vector<std::uint64_t>& blocks);

private:
    void insertOne(std::uint64_t key);

    int m_capacity;
    std::list<std::uint64_t> m_order; // most recent first
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> m_index;
};

} // namespace kssim
