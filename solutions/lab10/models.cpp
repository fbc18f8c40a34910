// Lab 10 reference: the eight functions of labs/lab10/models.cpp (declared in
// models.h beside this file; handouts/lab10.md explains them).
//
// Part 1, the roofline: data movement, arithmetic intensity and the
// roofline bound (Williams, Waterman, Patterson, CACM 2009).
//
// Part 2: the latency-hidden factor LH(i, j) and the time it predicts (Yuan
// et al., J. Software 2010, Sections 2.3-2.5).
#include "solutions/lab10/models.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace reference::lab10 {

// ---------------------------------------------------------------- Part 1: roofline

// The least any algorithm can move between memory and the chip: every input
// read once, every output written once (4 bytes a float).
double compulsory_bytes(mml::Shape s) {
    const double M = double(s.M), N = double(s.N), K = double(s.K);
    return 4.0 * (M * K + K * N + M * N);
}

// A tile of C of tile_m x tile_n needs tile_m rows of A and tile_n columns of
// B, all K deep. With nothing shared between tiles, A is read once by every
// column of tiles (ceil(N / tile_n) times) and B once by every row of tiles
// (ceil(M / tile_m) times); C is written once. Tiles of 1 x 1 are the naive
// algorithm (2K reads per output); a tile as large as C is the compulsory
// traffic. So bigger tiles -> fewer bytes per FLOP -> higher intensity.
double tiled_bytes(mml::Shape s, std::int64_t tile_m, std::int64_t tile_n) {
    const double M = double(s.M), N = double(s.N), K = double(s.K);
    const double row_tiles = std::ceil(M / double(tile_m));
    const double col_tiles = std::ceil(N / double(tile_n));
    return 4.0 * (col_tiles * M * K + row_tiles * K * N + M * N);
}

double arithmetic_intensity(mml::Shape s, double bytes) {
    return 2.0 * double(s.M) * double(s.N) * double(s.K) / bytes;
}

// Below the ridge point (intensity < peak / bandwidth) memory cannot feed
// the arithmetic units fast enough; above it, they are the limit.
double roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs) {
    return std::min(peak_gflops, intensity * bandwidth_gbs);
}

// ---------------------------------------------------------------- Part 2: latency-hidden factor
//
// The picture behind it (the paper's Fig. 2-7): the SM issues block i for
// its TNT = TLP x BLP warps in turn (round robin), ILP_i cycles each. Warp j
// then waits for its data: the latency MemAccLa_i, plus MemAccBw_i for its
// bytes to arrive, plus - when the warps' transfers queue behind one another
// (MemAccBw_i > ILP_i) - the extra (MemAccBw_i - ILP_i) of each warp ahead of
// it. While warp j waits, the SM keeps busy with the TNT - j warps still to
// issue block i and the j - 1 warps ahead of it that may already issue
// block i+1. LH(i, j) is the part of warp j's wait that this work does not
// cover:
//   LH(i,j) = max{0, 1 - [ILP_i (TNT - j) + (j-1) min{ILP_(i+1), max{ILP_i, Bw_i}}]
//                      / [La_i + Bw_i + (j-1) max{0, Bw_i - ILP_i}]}
// With a barrier at the end of block i (__syncthreads), warps of the same
// thread block cannot run ahead into block i+1, and the block's transfers
// all finish before anyone goes on: the paper rounds the (j-1) of the
// numerator DOWN and that of the denominator UP to whole thread blocks (NT
// warps). The printed formula for this case is garbled (its denominator can
// go negative); we follow the sentence that describes it.

namespace {

void check_j(const mml::lh::Occupancy& occ, int j) {
    if (occ.warps_per_block < 1 || occ.blocks_per_sm < 1)
        throw std::invalid_argument("occupancy needs at least one warp per block and one block per SM");
    if (j < 1 || j > occ.warps_on_sm())
        throw std::invalid_argument("warp j=" + std::to_string(j) + " is not in 1.." + std::to_string(occ.warps_on_sm()));
}

// The warps ahead of warp j as each term counts them: j - 1, or with a
// barrier that number rounded to whole thread blocks of NT warps.
double ahead_rounded_down(const mml::lh::Block& b, const mml::lh::Occupancy& occ, int j) {
    if (!b.barrier) return j - 1;
    const int nt = occ.warps_per_block;
    return double(nt) * ((j - 1) / nt);
}
double ahead_rounded_up(const mml::lh::Block& b, const mml::lh::Occupancy& occ, int j) {
    if (!b.barrier) return j - 1;
    const int nt = occ.warps_per_block;
    return double(nt) * ((j - 1 + nt - 1) / nt);
}

}  // namespace

double waiting_cycles(const mml::lh::Block& b, const mml::lh::Occupancy& occ, int j) {
    check_j(occ, j);
    return b.latency + b.bandwidth + ahead_rounded_up(b, occ, j) * std::max(0.0, b.bandwidth - b.ilp);
}

double latency_hidden(const mml::lh::Block& b, const mml::lh::Block& next, const mml::lh::Occupancy& occ, int j) {
    const double wait = waiting_cycles(b, occ, j);
    if (wait <= 0) return 0;  // nothing to wait for (a block with no memory access)
    const double behind = double(occ.warps_on_sm() - j) * b.ilp;  // still to issue block i
    // The warps ahead go on with block i+1, but no faster than their own data
    // arrives: max{ILP_i, Bw_i} apart.
    const double ahead = ahead_rounded_down(b, occ, j) * std::min(next.ilp, std::max(b.ilp, b.bandwidth));
    return std::max(0.0, 1.0 - (behind + ahead) / wait);
}

// SMComputeTime_i: every resident warp issues block i (TNT x ILP_i). The
// exposed wait: the paper sums MemAccessLatency_ij x LH(i,j) over the warps,
// but the warps wait at the same time, so their exposed waits overlap; what
// the SM loses is the longest one. (Read as a plain sum, the model predicts
// the C1060's naive kernel some ten times slower than it ran: see
// time_one_rep_as_printed in models/lh_model.h and handouts/lab10.md.)
// Block i+1 of the last block is block 0 (the paper's ILP_{NBB+1} = ILP_1).
double time_one_rep(const std::vector<mml::lh::Block>& blocks, const mml::lh::Occupancy& occ) {
    const int tnt = occ.warps_on_sm();
    double total = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const mml::lh::Block& b = blocks[i];
        const mml::lh::Block& next = blocks[(i + 1) % blocks.size()];
        double exposed = 0;
        for (int j = 1; j <= tnt; ++j)
            exposed = std::max(exposed, waiting_cycles(b, occ, j) * latency_hidden(b, next, occ, j));
        total += tnt * b.ilp + exposed;
    }
    return total;
}

// RepNum = NB / (BLP x NSM), rounded up: a last, partial round of blocks
// takes as long as a full one (the paper writes the plain quotient).
long long rep_num(long long grid_blocks, int blocks_per_sm, int sm_count) {
    const long long per_round = (long long)blocks_per_sm * sm_count;
    return (grid_blocks + per_round - 1) / per_round;
}

double time_total_cycles(const mml::lh::Kernel& k) {
    return time_one_rep(k.blocks, k.occupancy) * double(rep_num(k.grid_blocks, k.occupancy.blocks_per_sm, k.sm_count));
}

}  // namespace reference::lab10
