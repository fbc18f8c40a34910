// Given code (lab 5): the cache block sizes of the BLIS loops (block_sizes.h),
// from this machine's caches (read at run time: sysconf) with the analytical
// rules of the BLIS papers (Low, Igual, Smith, Quintana-Orti, "Analytical
// modeling is enough for high-performance BLIS", ACM TOMS 2016), for the loop
// order of blis_loops.cpp: the A sliver (MR x KC) is the packed operand that
// stays in L1 while B micro-panels (KC x NR) stream past it from the B block
// (KC x NC) in L2; the A panel (MC x KC) is in L3. (BLIS's own order keeps a
// B micro-panel in L1 and the A block in L2: the same five loops, other
// rules; handouts/lab5.md.)
#include "labs/common/block_sizes.h"

#include <unistd.h>

#include <algorithm>

namespace common::lab5 {

namespace {
std::int64_t sysconf_or(int name, std::int64_t fallback) {
    const long v = sysconf(name);
    return v > 0 ? v : fallback;
}
constexpr std::int64_t kFloat = sizeof(float);
std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
std::int64_t ceil_div(std::int64_t x, std::int64_t m) { return (x + m - 1) / m; }
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

// KC, the L1 rule. A W-way L1 of S bytes is W "ways" of S/W bytes; an array
// of that size, contiguous, lands one line in each set: it fills one way.
// During loop 1 the A sliver (MR*KC floats) is read once per micro-kernel
// call and must stay; each call streams a new B micro-panel (KC*NR floats)
// through. With least-recently-used replacement, the lines a new B
// micro-panel evicts are those of the previous B micro-panel - never the
// sliver's - as long as the sliver, one B micro-panel and one way for
// everything else (the C tile, the stack) fit in the W ways:
//     ceil(MR*KC*4 / way) + ceil(KC*NR*4 / way) <= W - 1.
// The largest such KC: try B micro-panels that fill 1..W-2 whole ways (KC
// between those values would not fill its last way any better) and keep the
// largest that leaves room for the sliver. 48 KiB, 12 ways, 12 x 32 (this
// Xeon, Zen 4/5): KC = 256, sliver 3 ways + B 8 ways. 32 KiB, 8 ways,
// 6 x 16 (Zen 3, AVX2): KC = 320, 2 + 5 ways.
//
// NC, the L2 rule. The B block (KC x NC) is read again for every A sliver
// of the panel: it stays in L2, taking half of it; the other half is for
// the A slivers and C tiles passing through.
//
// MC, the L3 rule. The A panel (MC x KC) is read again for every B block:
// it stays in L3, a quarter of it (L3 is shared by the cores, and the rest
// of it is for the other threads' panels, B on its way to being packed, and
// C). At most 4096 rows (rounded
// up to whole slivers): B is packed again for every MC rows of A, so up to
// M = 4096, once.
BlockSizes cache_block_sizes(int MR, int NR, const CacheSizes& caches) {
    const std::int64_t ways = std::max<std::int64_t>(2, caches.l1d_ways);
    const std::int64_t way = caches.l1d / ways;
    std::int64_t kc = caches.l1d / 2 / ((MR + NR) * kFloat);  // if no split fits (a tiny L1): half of L1 for both
    for (std::int64_t ways_b = ways - 2; ways_b >= 1; --ways_b) {
        const std::int64_t k = ways_b * way / (NR * kFloat);
        if (k > 0 && ceil_div(MR * k * kFloat, way) + ways_b <= ways - 1) {
            kc = k;
            break;
        }
    }
    BlockSizes b;
    b.KC = std::clamp<std::int64_t>(kc, 16, 1024);
    b.NC = std::clamp<std::int64_t>(caches.l2 / 2 / (b.KC * kFloat), NR, 4096) / NR * NR;
    b.MC = std::min(std::max<std::int64_t>(caches.l3 / 4 / (b.KC * kFloat), MR) / MR * MR, round_up(4096, MR));
    return b;
}

BlockSizes resolve_block_sizes(BlockSizes requested, int MR, int NR) {
    static const CacheSizes caches = cache_sizes();  // read once
    const BlockSizes d = cache_block_sizes(MR, NR, caches);
    BlockSizes b;
    b.MC = round_up(requested.MC > 0 ? requested.MC : d.MC, MR);
    b.KC = requested.KC > 0 ? requested.KC : d.KC;
    b.NC = round_up(requested.NC > 0 ? requested.NC : d.NC, NR);
    return b;
}

BlockSizes blocks_for_product(BlockSizes requested, int MR, int NR, std::int64_t M, std::int64_t N, std::int64_t K) {
    BlockSizes b = resolve_block_sizes(requested, MR, NR);
    const std::int64_t k_steps = ceil_div(K, b.KC);
    b.KC = ceil_div(K, k_steps);
    b.MC = std::min(b.MC, round_up(M, MR));
    b.NC = std::min(b.NC, round_up(N, NR));
    return b;
}

}  // namespace common::lab5
