#include "solutions/lab5/blocking.h"

#include <unistd.h>

#include <algorithm>

namespace reference::lab5 {

namespace {
std::int64_t sysconf_or(int name, std::int64_t fallback) {
    const long v = sysconf(name);
    return v > 0 ? v : fallback;
}
std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
}  // namespace

CacheSizes cache_sizes() {
    CacheSizes c;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    c.l1d = sysconf_or(_SC_LEVEL1_DCACHE_SIZE, 32 * 1024);
    c.l2 = sysconf_or(_SC_LEVEL2_CACHE_SIZE, 512 * 1024);
    c.l3 = sysconf_or(_SC_LEVEL3_CACHE_SIZE, 8 * 1024 * 1024);
#else
    c = {32 * 1024, 512 * 1024, 8 * 1024 * 1024};
#endif
    return c;
}

BlockSizes default_block_sizes(const KernelSet& kernels, const CacheSizes& caches) {
    constexpr std::int64_t F = sizeof(float);
    BlockSizes b;
    b.KC = std::clamp<std::int64_t>(caches.l1d * 3 / 4 / (kernels.NR * F), 64, 1024);
    b.MC = std::clamp<std::int64_t>(caches.l2 / 2 / (b.KC * F), kernels.MR, 1024) / kernels.MR * kernels.MR;
    b.NC = std::clamp<std::int64_t>(caches.l3 / 4 / (b.KC * F), kernels.NR, 4096) / kernels.NR * kernels.NR;
    return b;
}

BlockSizes resolve_block_sizes(BlockSizes requested, const KernelSet& kernels) {
    const BlockSizes d = default_block_sizes(kernels, cache_sizes());
    BlockSizes b;
    b.MC = round_up(requested.MC > 0 ? requested.MC : d.MC, kernels.MR);
    b.KC = requested.KC > 0 ? requested.KC : d.KC;
    b.NC = round_up(requested.NC > 0 ? requested.NC : d.NC, kernels.NR);
    return b;
}

BlockSizes blocks_for_product(BlockSizes requested, const KernelSet& kernels, std::int64_t N, std::int64_t K) {
    BlockSizes b = resolve_block_sizes(requested, kernels);
    const std::int64_t k_steps = (K + b.KC - 1) / b.KC;
    b.KC = (K + k_steps - 1) / k_steps;
    b.NC = std::min(b.NC, round_up(N, kernels.NR));
    return b;
}

}  // namespace reference::lab5
