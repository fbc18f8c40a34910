// Given code (lab 5): you use it, you do not write it.
//
// The cache block sizes of the BLIS loops (Goto & van de Geijn; the BLIS
// papers name them so):
//   KC  the depth of one rank-KC update: a KC x NR micro-panel of B stays in L1
//   MC  the rows of the packed MC x KC block of A, which stays in L2
//   NC  the columns of the packed KC x NC panel of B, which stays in L3
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

// Block sizes from the cache sizes and the register tile MR x NR:
//   KC: the B micro-panel (KC x NR floats) fills 3/4 of L1d; the rest is
//       for the A micro-panel and the C tile, which stream through (the
//       analytical model of Low et al., 2016, gives the B micro-panel all but
//       about two of L1's ways). 384 for a 32 KiB L1d and NR = 16: on the Zen 3
//       here level with or up to 1 % ahead of half of L1 (KC = 256): each
//       micro-kernel call, with its C tile loads and stores, does 1.5x more
//       FMAs, and C is read and written 1.5x less often;
//   MC: the A block (MC x KC) fills half of L2, rounded down to MR rows;
//   NC: the B panel (KC x NC) fills a quarter of L3 (shared by the cores),
//       at most 4096 columns, rounded down to NR.
BlockSizes default_block_sizes(int MR, int NR, const CacheSizes& caches = cache_sizes());

// The number of micro-panels of n rows or columns, R each: ceil(n / R).
inline std::int64_t panels(std::int64_t n, int R) { return (n + R - 1) / R; }

}  // namespace common::lab5
