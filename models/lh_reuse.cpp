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
// 2. L2 (the whole GPU): what misses the L1, is it still in the L2? Blocks
//    are dispatched in waves (BLP x NSM at once), and the blocks of a wave
//    that read the same data walk k in step: one ahead of the others takes
//    the misses, slows down, and the others catch up (a convoy, as for the
//    warps of one block). So a sector's first request comes from all its
//    sharers in the wave together: DRAM serves it once, and all of them wait
//    for that fill. Sharers in later waves find it in the L2 if it stayed.
//    - A's row panel is read by the grid_x blocks of one grid row, launched
//      one after another, so in the same wave: 1 / grid_x of its bytes come
//      from DRAM, and the waits of the wave that first touches it end there.
//      A panel is small; it stays for any later wave of the same row.
//    - B's column strip is read by the grid_y block rows, rows_per_wave =
//      resident / grid_x of them in each wave. Between two waves the GPU
//      touches all of B and the A panels at work; if that fits in the L2, B
//      stays: DRAM serves it once (1 / grid_y) and only the first wave waits
//      for DRAM. If it does not (LRU-like replacement of a working set larger
//      than the cache), each wave fetches it again: 1 / rows_per_wave of the
//      bytes from DRAM, every wait at DRAM. At n = 2080 B is 17 MB and fits
//      the H100's 50 MiB; at 4096 it is 64 MB and does not.
//    - Warm inputs: our times are medians of runs repeated on the same A, B
//      and C. When the three fit in the L2 together (n <= 2080 on an H100:
//      3 x 17.3 MB), the previous run left them there, and no load goes to
//      DRAM at all: the compulsory misses are a first run's, not a timed one's.
#include "models/lh_reuse.h"

#include <algorithm>
#include <cmath>
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

double rows_per_wave(const LaunchGeometry& g) {
    const double rows = double(std::max(1LL, g.resident)) / double(std::max(1LL, g.grid_x));
    return std::max(1.0, std::min(double(std::max(1LL, g.grid_y)), rows));
}

bool inputs_stay_in_l2(Shape s, double l2_bytes) {
    const double m = double(s.M), n = double(s.N), k = double(s.K);
    return 4.0 * (m * k + k * n + m * n) <= l2_bytes;
}

L2Share a_panel_l2(Shape s, const LaunchGeometry& g, double l2_bytes) {
    if (inputs_stay_in_l2(s, l2_bytes)) return {0, 0};
    const double gx = double(std::max(1LL, g.grid_x));
    return {1.0 / gx, std::min(1.0, double(std::max(1LL, g.resident)) / gx)};
}

bool b_stays_in_l2(Shape s, const LaunchGeometry& g, double l2_bytes) {
    const double a_rows = std::min(double(s.M), std::ceil(rows_per_wave(g)) * double(g.block_rows));
    const double working_set = 4.0 * (double(s.K) * double(s.N) + a_rows * double(s.K));
    return working_set <= l2_bytes;
}

L2Share b_strip_l2(Shape s, const LaunchGeometry& g, double l2_bytes) {
    if (inputs_stay_in_l2(s, l2_bytes)) return {0, 0};
    const double gy = double(std::max(1LL, g.grid_y)), rows = rows_per_wave(g);
    if (b_stays_in_l2(s, g, l2_bytes)) return {1.0 / gy, rows / gy};
    return {1.0 / rows, 1.0};
}

}  // namespace mml::lh
