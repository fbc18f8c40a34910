// Lab 10's extension of Yuan et al. 2010's model to a GPU with caches: for each global
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

// Block rows of the grid resident at once (one wave): resident / grid_x,
// at least 1, at most grid_y.
double rows_per_wave(const LaunchGeometry& g);

// Blocks are dispatched in waves and the blocks of one wave that read the
// same data walk k in step: a block ahead of the others takes the misses and
// slows down, the others catch up (a convoy, like the warps of one block). So
// the first request for a sector comes from all its sharers in the wave at
// once: DRAM serves it once for them all (the bytes), and all of them wait for
// that fill (the waits end at DRAM). Sharers in a later wave find it in the
// L2 if it stayed there.

// Whether the inputs are in the L2 when the kernel starts: the run before it
// (the timing loop repeats the product on the same A, B and C) left them
// there if A, B and C together fit: 4(MK + KN + MN) <= L2. Then no load of A
// or B goes to DRAM, and no wait ends there.
bool inputs_stay_in_l2(Shape s, double l2_bytes);

// A's row panel: read by the grid_x blocks of one grid row, launched one
// after another, so together in a wave: bytes 1 / grid_x from DRAM; the waits
// of the blocks of the first wave that touches it end at DRAM (all of them
// unless a grid row spans several waves), later ones at the L2 (a panel is
// small: it stays). Nothing from DRAM when the inputs stay in the L2.
L2Share a_panel_l2(Shape s, const LaunchGeometry& g, double l2_bytes);

// Whether B stays in the L2 from one wave to the next. Meanwhile the GPU
// touches all of B (every column strip, every depth k) and the A panels of the
// rows at work: B stays when 4(KN + rows resident x K) <= L2.
bool b_stays_in_l2(Shape s, const LaunchGeometry& g, double l2_bytes);

// B's column strip: read by the grid_y block rows, rows_per_wave of them in
// each wave. If B stays in the L2, DRAM serves it once (bytes 1 / grid_y) and
// only the first wave waits for DRAM (rows_per_wave / grid_y of the waits).
// If it does not, every wave fetches it again: bytes 1 / rows_per_wave, and
// every wait ends at DRAM. Nothing from DRAM when the inputs stay in the L2.
L2Share b_strip_l2(Shape s, const LaunchGeometry& g, double l2_bytes);

}  // namespace mml::lh
