// The reuse analysis of lab 10's cache-aware model (lh_reuse.h).
//
// Two questions per global load stream, answered from the access pattern:
//
// 1. L1 (one SM): does another request on the same SM use the same 32-byte
//    sector soon after? In our kernels only two patterns give L1 hits:
//    - lab 6's naive kernel reads A[i][k]: one float per warp per step, so one
//      sector serves the warp's next 8 steps (own_reuse, uses = 8);
//    - its B[k][j..j+31] is read by all 8 warps of the block (the 8 rows of
//      the block, the same 32 columns) at the same step: one warp's request
//      fetches the sector, the 7 others hit the L1 - but they run the same
//      instructions at the same time, so they wait for that same fill
//      (convoy: bytes saved, no latency saved).
//    The tiled and Volkov kernels copy each element of A's and B's tiles once
//    per block (into shared memory or a register): no L1 reuse. Consecutive
//    blocks, which share panels, are placed on different SMs.
//
// 2. L2 (the whole GPU): what misses the L1, is it still in the L2?
//    - A's row panel is read by the grid_x blocks of one grid row, launched
//      one after another, so resident together (or in quick succession):
//      between two uses the GPU touches little else, and only the first
//      block's misses reach DRAM (1 / grid_x).
//    - B's column strip is read by the grid_y blocks of one grid column, which
//      are grid_x launches apart. Blocks start as others end, so the resident
//      ones are spread over every depth k: between two uses of one sector of B
//      the GPU touches all of B. With LRU-like replacement, B stays in the L2
//      if it fits (with the A panels in use) and is re-read from DRAM by every
//      block row if it does not: a cliff, not a slope. At n = 2048 B is 16 MB
//      and fits the H100's 50 MB; at 4096 it is 64 MB and does not.
//    - One wave: when the whole grid is resident at once, every block starts
//      together and walks k in step with the others. Then no sharer's request
//      comes after the fill: each sector is asked for by all its sharers at
//      about the same time, DRAM serves it once (the bytes), and all of them
//      wait for that fill (the waits end at DRAM). With several waves, blocks
//      start as others end and drift apart, and the sharers that come later
//      find the sector in the L2.
#include "models/lh_reuse.h"

#include <algorithm>
#include <stdexcept>

namespace mml::lh {
namespace {

void check_share(L2Share l2, const char* what) {
    for (double d : {l2.dram_bytes, l2.dram_wait})
        if (!(d >= 0 && d <= 1)) throw std::invalid_argument(std::string(what) + ": a share must be in [0, 1]");
}

// The L1 takes `l1` of the total, the rest splits between L2 and DRAM.
Levels split(double l1, double dram_of_misses) {
    return {l1, (1 - l1) * (1 - dram_of_misses), (1 - l1) * dram_of_misses};
}

}  // namespace

StreamShare own_reuse(double uses, double steps_per_wait, L2Share l2) {
    if (uses < 1 || steps_per_wait < 1) throw std::invalid_argument("own_reuse: uses and steps_per_wait must be >= 1");
    check_share(l2, "own_reuse");
    StreamShare s;
    s.bytes = split(1 - 1 / uses, l2.dram_bytes);
    s.wait = split(1 - std::min(1.0, steps_per_wait / uses), l2.dram_wait);
    return s;
}

StreamShare convoy(double warps, L2Share l2) {
    if (warps < 1) throw std::invalid_argument("convoy: warps must be >= 1");
    check_share(l2, "convoy");
    StreamShare s;
    s.bytes = split(1 - 1 / warps, l2.dram_bytes);
    s.wait = split(0, l2.dram_wait);
    return s;
}

StreamShare no_l1_reuse(L2Share l2) {
    check_share(l2, "no_l1_reuse");
    StreamShare s;
    s.bytes = split(0, l2.dram_bytes);
    s.wait = split(0, l2.dram_wait);
    return s;
}

bool one_wave(const LaunchGeometry& g) { return g.grid_x * g.grid_y <= g.resident; }

L2Share a_panel_l2(const LaunchGeometry& g) {
    const double first = 1.0 / double(std::max(1LL, g.grid_x));
    return {first, one_wave(g) ? 1.0 : first};
}

bool b_stays_in_l2(Shape s, const LaunchGeometry& g, double l2_bytes) {
    // Grid rows the resident blocks work on (a partial row counts as one).
    const long long rows_of_blocks = std::min(g.grid_y, (std::max(1LL, g.resident) + g.grid_x - 1) / g.grid_x);
    const double a_rows = double(std::min<long long>(s.M, rows_of_blocks * g.block_rows));
    const double working_set = 4.0 * (double(s.K) * double(s.N) + a_rows * double(s.K));
    return working_set <= l2_bytes;
}

L2Share b_strip_l2(Shape s, const LaunchGeometry& g, double l2_bytes) {
    const double first = 1.0 / double(std::max(1LL, g.grid_y));
    if (one_wave(g)) return {first, 1.0};
    return b_stays_in_l2(s, g, l2_bytes) ? L2Share{first, first} : L2Share{1.0, 1.0};
}

}  // namespace mml::lh
