// Lab 5 reference: the cache block sizes of the BLIS loops (Goto & van de
// Geijn; the BLIS papers name them so):
//   KC  the depth of one rank-KC update: a KC x NR micro-panel of B stays in L1
//   MC  the rows of the packed MC x KC block of A, which stays in L2
//   NC  the columns of the packed KC x NC panel of B, which stays in L3
// MR x NR is the register tile of the micro-kernel (kernels.h).
#pragma once

#include <cstdint>

#include "solutions/lab5/kernels.h"

namespace reference::lab5 {

struct BlockSizes {
    std::int64_t MC = 0, KC = 0, NC = 0;  // 0 = the default for this machine
};

struct CacheSizes {
    std::int64_t l1d = 0, l2 = 0, l3 = 0;  // bytes
};

// Read at run time (sysconf); a typical size where the OS does not say.
CacheSizes cache_sizes();

// Block sizes from the cache sizes and the kernel's tile:
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
BlockSizes default_block_sizes(const KernelSet& kernels, const CacheSizes& caches);

// Zeros replaced by the defaults, MC rounded up to a multiple of MR and NC
// to one of NR (the packing works in whole micro-panels).
BlockSizes resolve_block_sizes(BlockSizes requested, const KernelSet& kernels);

// The block sizes matmul_blis uses for one M x N x K product: those of
// resolve_block_sizes, with NC capped at N (rounded up to NR) and K cut into
// equal steps of at most KC: K = 2048 with KC = 384 gives 6 steps of 342, not
// 5 of 384 and a last one of 128 - a short step reads and writes all of C for
// a third of the FMAs, and a micro-kernel call with a short k loop spends a
// larger share of its time on its C tile.
BlockSizes blocks_for_product(BlockSizes requested, const KernelSet& kernels, std::int64_t N, std::int64_t K);

}  // namespace reference::lab5
