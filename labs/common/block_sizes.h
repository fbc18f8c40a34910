// Given code (lab 5): you use it, you do not write it.
//
// The cache block sizes of the BLIS loops (Goto & van de Geijn; the BLIS
// papers name them so), for the loop order of blis_loops.h:
//   KC  the depth of one rank-KC update: an MR x KC sliver of A stays in L1
//   NC  the columns of the packed KC x NC block of B, which stays in L2
//   MC  the rows of the packed MC x KC panel of A, which stays in L3
// MR x NR is the register tile of the micro-kernel.
#pragma once

#include <cstdint>

namespace common::lab5 {

struct BlockSizes {
    std::int64_t MC = 0, KC = 0, NC = 0;  // 0 = the default for this machine
};

struct CacheSizes {
    std::int64_t l1d = 0, l2 = 0, l3 = 0;  // bytes
    std::int64_t l1d_ways = 8;             // L1d associativity (the reference's KC rule uses it)
};

// Read at run time (sysconf); a typical size where the OS does not say.
CacheSizes cache_sizes();

// MC, KC, NC for an MR x NR tile from the cache sizes, by the analytical
// rules written out in block_sizes.cpp (KC: the A sliver and a B
// micro-panel in L1; NC: the B block in half of L2; MC: the A panel in a
// quarter of L3).
BlockSizes cache_block_sizes(int MR, int NR, const CacheSizes& caches);

// Zeros in `requested` replaced by this machine's cache_block_sizes, MC
// rounded up to a multiple of MR and NC to one of NR (the packing works in
// whole micro-panels).
BlockSizes resolve_block_sizes(BlockSizes requested, int MR, int NR);

// The block sizes the loops use for one M x N x K product: those of
// resolve_block_sizes, with MC capped at M and NC at N (rounded up to MR, NR)
// and K cut into equal steps of at most KC: K = 2048 with KC = 384 gives 6
// steps of 342, not 5 of 384 and a last one of 128 - a short step reads and
// writes all of C for a third of the FMAs, and a micro-kernel call with a
// short k loop spends a larger share of its time on its C tile.
BlockSizes blocks_for_product(BlockSizes requested, int MR, int NR, std::int64_t M, std::int64_t N, std::int64_t K);

// The number of micro-panels of n rows or columns, R each: ceil(n / R).
inline std::int64_t panels(std::int64_t n, int R) { return (n + R - 1) / R; }

}  // namespace common::lab5
