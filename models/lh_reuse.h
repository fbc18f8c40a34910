// Lab 10's extension of seed 004's model to a GPU with caches: for each global
// load of our kernels, which part of its bytes the L1 serves, which the L2
// and which DRAM, and at which level a warp's wait for it ends, derived from
// the kernel's access pattern and the caches' sizes (a reuse analysis; the
// derivation is in lh_reuse.cpp and handouts/lab10.md, "Part 2 with caches").
// Nothing here is fitted to a kernel's time: the inputs are the shape, the
// kernel's geometry, the blocks resident at once and the L2's size.
// Plain C++ (the model runs without a GPU).
#pragma once

#include "cpu/matrix.h"

namespace mml::lh {

// Shares of the three levels: fractions in [0, 1] that add up to 1.
struct Levels {
    double l1 = 0, l2 = 0, dram = 0;
};

// One global load stream (A's or B's loads of one basic block) as the caches see it.
struct StreamShare {
    Levels bytes;  // of the bytes the warp requests: served by the L1, by the L2, by DRAM
    Levels wait;   // the probability that the warp's wait for this stream ends at each level
};

// Of a stream's L1 misses: the part of their bytes that DRAM serves, and the
// part of the warps' waits for them that ends at DRAM (the rest at the L2).
// They differ when the blocks that share the data run in step (one wave, see
// below): one block's request fetches a sector from DRAM, and the others,
// asking for it at the same time, wait for that same fill.
struct L2Share {
    double dram_bytes = 0, dram_wait = 0;
};

// A stream whose L1 misses split between the L2 and DRAM as `l2` says:
//   own_reuse     a warp requests each sector on `uses` consecutive steps and
//                 waits once every `steps_per_wait` steps (its loads of those
//                 steps in flight together): the L1 serves 1 - 1/uses of the
//                 bytes; a wait ends at the L1 unless its steps start a new
//                 sector, with probability min(1, steps_per_wait / uses);
//   convoy        `warps` warps of one block request the same sector together
//                 (they run the same code in step): one request goes past the
//                 L1, the others wait for its fill, so the L1 saves bytes
//                 (1 - 1/warps) but no warp's wait ends sooner;
//   no_l1_reuse   every sector requested once on its SM (tiles copied to
//                 shared memory, B streamed by one warp).
StreamShare own_reuse(double uses, double steps_per_wait, L2Share l2);
StreamShare convoy(double warps, L2Share l2);
StreamShare no_l1_reuse(L2Share l2);

// The launch as the L2 sees it: a grid of grid_x x grid_y blocks (x the
// fastest in launch order), each a block_rows x block_cols tile of C, of
// which `resident` run at once (BLP x NSM, at most the grid).
struct LaunchGeometry {
    long long grid_x = 1, grid_y = 1;
    long long block_rows = 1, block_cols = 1;
    long long resident = 1;
};

// Whether the whole grid runs in one wave (grid_x x grid_y <= resident): then
// every block starts at once and walks k in step with the others, so every
// sector is first requested by all its sharers together, and they all wait
// for DRAM (the bytes still come from DRAM once).
bool one_wave(const LaunchGeometry& g);

// A's row panel: the grid_x blocks of one row of the grid read the same panel
// and start one after another, so only the first one's misses reach DRAM:
// 1 / grid_x of the bytes, and of the waits (all of them in one wave).
L2Share a_panel_l2(const LaunchGeometry& g);

// Whether B stays in the L2 between two uses of one of its sectors by blocks
// of consecutive grid rows. Those uses are grid_x launches apart; meanwhile
// the resident blocks, started one after another, stand at every depth k of
// their columns, so they touch all of B, and the A panels of the rows they
// work on. B stays when that working set fits: 4(KN + rows resident x K) <= L2.
bool b_stays_in_l2(Shape s, const LaunchGeometry& g, double l2_bytes);

// B's column strip: when B stays in the L2, only the first of the grid_y
// block rows that read a strip fetches it (1 / grid_y of the bytes and the
// waits); when it does not, every block row fetches it again (1). In one wave,
// the grid_y block rows read it in step: bytes 1 / grid_y, waits all DRAM.
L2Share b_strip_l2(Shape s, const LaunchGeometry& g, double l2_bytes);

}  // namespace mml::lh
