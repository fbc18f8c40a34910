// Given code (lab 5): the cache block sizes of the BLIS loops (block_sizes.h).
#include "labs/common/block_sizes.h"

#include <unistd.h>

#include <algorithm>

namespace common::lab5 {

namespace {
std::int64_t sysconf_or(int name, std::int64_t fallback) {
    const long v = sysconf(name);
    return v > 0 ? v : fallback;
}
}  // namespace

CacheSizes cache_sizes() {
    CacheSizes c;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    c.l1d = sysconf_or(_SC_LEVEL1_DCACHE_SIZE, 32 * 1024);
    c.l2 = sysconf_or(_SC_LEVEL2_CACHE_SIZE, 512 * 1024);
    c.l3 = sysconf_or(_SC_LEVEL3_CACHE_SIZE, 8 * 1024 * 1024);
    c.l1d_ways = sysconf_or(_SC_LEVEL1_DCACHE_ASSOC, 8);
#else
    c = {32 * 1024, 512 * 1024, 8 * 1024 * 1024};
#endif
    return c;
}

BlockSizes default_block_sizes(int MR, int NR, const CacheSizes& caches) {
    constexpr std::int64_t F = sizeof(float);
    BlockSizes b;
    b.KC = std::clamp<std::int64_t>(caches.l1d * 3 / 4 / (NR * F), 64, 1024);
    b.MC = std::clamp<std::int64_t>(caches.l2 / 2 / (b.KC * F), MR, 1024) / MR * MR;
    b.NC = std::clamp<std::int64_t>(caches.l3 / 4 / (b.KC * F), NR, 4096) / NR * NR;
    return b;
}

}  // namespace common::lab5
