// Lab 10 - your code. Read handouts/lab10.md first.
//
// Eight short functions. `make lab10` runs their tests (hand-computed
// values, the edge cases of LH included), then uses YOUR functions to place
// the measured stages of labs 1-8 on the roofline and to predict the GPU
// kernels' times. Until you write them they return 0 and the tests say which
// value they expected.
#include "labs/lab10/models.h"

#include <algorithm>
#include <cmath>

namespace student::lab10 {

// ---------------------------------------------------------------- Part 1: roofline

double compulsory_bytes(mml::Shape s) {
    // TODO(lab10, task 1): the compulsory traffic.
    //   Contract: the bytes a product of this shape must move at the least:
    //     A (M x K) and B (K x N) read once, C (M x N) written once, float32.
    //     Exact for large shapes too (the tests go to 10^5 on a side).
    //   Goal: the "compulsory" data-movement model of handouts/lab10.md,
    //     Background (the roofline): the bound no algorithm beats.
    //   Judged: the tests (values worked out by hand); then `make lab10`
    //     places every measured stage under the bound it gives. Stuck: hints 10.1.x.
    (void)s;
    return 0;
}

double tiled_bytes(mml::Shape s, std::int64_t tile_m, std::int64_t tile_n) {
    // TODO(lab10, task 2): the traffic of a tiled algorithm.
    //   Contract: the bytes moved when C is cut into tiles of tile_m x tile_n
    //     (edge tiles may be partial, and count as whole tiles) and each tile
    //     reads its rows of A and its columns of B once, sharing nothing with
    //     other tiles; C written once. tile_m, tile_n >= 1.
    //   Goal: the "tiled" model of the handout's Background: 1 x 1 tiles are
    //     the naive algorithm, one tile as large as C is task 1's traffic.
    //   Judged: the tests (partial tiles among them). Stuck: hints 10.2.x.
    (void)s; (void)tile_m; (void)tile_n;
    return 0;
}

double arithmetic_intensity(mml::Shape s, double bytes) {
    // TODO(lab10, task 3): the arithmetic intensity.
    //   Contract: FLOP per byte for this shape when `bytes` are moved (2 FLOP a
    //     multiply-add); bytes > 0.
    //   Goal: where the product sits on the roofline's x axis.
    //   Judged: the tests (n = 1000 with the compulsory bytes: n / 6). Stuck: hint 10.3.1.
    (void)s; (void)bytes;
    return 0;
}

double roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs) {
    // TODO(lab10, task 4): the roofline.
    //   Contract: the attainable GFLOP/s at this intensity (FLOP/byte) on a
    //     machine of this peak (GFLOP/s) and bandwidth (GB/s).
    //   Goal: the roofline bound of the handout's Background: the lower of
    //     the two roofs.
    //   Judged: the tests, on both sides of the ridge point. Stuck: hint 10.4.1.
    (void)intensity; (void)peak_gflops; (void)bandwidth_gbs;
    return 0;
}

// ---------------------------------------------------------------- Part 2: latency-hidden factor
// Notation (models/lh_model.h): for block b = block i,
//   ILP_i = b.ilp, La_i = b.latency, Bw_i = b.bandwidth;
//   TNT = occ.warps_on_sm() (TLP x BLP), NT = occ.warps_per_block;
//   j = 1..TNT is the warp's place in the SM's round-robin order.

double waiting_cycles(const mml::lh::Block& b, const mml::lh::Occupancy& occ, int j) {
    // TODO(lab10, task 5): W(i, j), how long warp j waits for block b's data.
    //   Contract: cycles, for warp j = 1..TNT (1-based: its place in the SM's
    //     round-robin order) of b's block, with and without a barrier (b.barrier).
    //   Goal: Yuan et al. 2010's wait: the latency, the warp's own transfer, and the
    //     queue of transfers ahead of it when transfers are slower than
    //     issue; with a barrier, the thread block's transfers end together
    //     (the handout's Background, "With a barrier": rounded UP to whole
    //     thread blocks of NT warps).
    //   Judged: the tests (j = 1, j = TNT, each rounding case of the
    //     barrier). Stuck: hints 10.5.x.
    (void)b; (void)occ; (void)j;
    return 0;
}

double latency_hidden(const mml::lh::Block& b, const mml::lh::Block& next, const mml::lh::Occupancy& occ, int j) {
    // TODO(lab10, task 6): LH(i, j), the share of warp j's wait that the
    // other warps cannot hide.
    //   Contract: a number in [0, 1]; next is the block after b (its ILP is
    //     what the warps ahead issue); 0 when W(i, j) <= 0 (nothing to hide).
    //   Goal: Yuan et al. 2010's unified factor (the handout's Background): the
    //     warps behind j issue block i, those ahead issue block i+1 no faster
    //     than their data arrives; with a barrier, those ahead are rounded
    //     DOWN to whole thread blocks.
    //   Judged: the tests: j = 1 (nobody ahead), j = TNT (nobody behind), the
    //     clamp at 0 when the others cover the whole wait. Stuck: hints 10.6.x.
    (void)b; (void)next; (void)occ; (void)j;
    return 0;
}

double time_one_rep(const std::vector<mml::lh::Block>& blocks, const mml::lh::Occupancy& occ) {
    // TODO(lab10, task 7): TimeOneRep, one round of the TNT resident warps
    // through all the blocks, in cycles.
    //   Contract: blocks in the warp's order; the block after the last one is
    //     the first (the paper takes subscripts modulo NBB).
    //   Goal: per block, the SM's compute time for every resident warp plus
    //     the exposed wait, read as the handout's "Reading the sum" explains
    //     (the warps wait at the same time).
    //   Judged: the tests; then `make lab10` predicts lab 6-7's kernels with
    //     it beside their measured times. Stuck: hints 10.7.x.
    (void)blocks; (void)occ;
    return 0;
}

long long rep_num(long long grid_blocks, int blocks_per_sm, int sm_count) {
    // TODO(lab10, task 8a): RepNum, how many rounds of blocks the GPU needs
    // for NB = grid_blocks, BLP = blocks_per_sm, NSM = sm_count.
    //   Contract: exact for any positive inputs; a partial last round costs a
    //     whole one. Goal and judged: the tests (120, 121 and 1 block among
    //     them). Stuck: hint 10.8.1.
    (void)grid_blocks; (void)blocks_per_sm; (void)sm_count;
    return 0;
}

double time_total_cycles(const mml::lh::Kernel& k) {
    // TODO(lab10, task 8b): TimeTotal of kernel k, in cycles: one round's
    // time times the rounds (k.grid_blocks, k.occupancy, k.sm_count).
    //   Judged: the tests; it is the model's prediction `make lab10` prints.
    //   Stuck: hint 10.8.2.
    (void)k;
    return 0;
}

}  // namespace student::lab10
