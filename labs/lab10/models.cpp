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
    // TODO(lab10, task 1): the bytes A (M x K), B (K x N) and C (M x N) take
    // as float32: 4 * (M*K + K*N + M*N). Convert M, N, K to double before
    // multiplying: the result is a double anyway, and the same habit keeps
    // task 3's 2*M*N*K from overflowing int64 on very large shapes.
    (void)s;
    return 0;
}

double tiled_bytes(mml::Shape s, std::int64_t tile_m, std::int64_t tile_n) {
    // TODO(lab10, task 2): C is cut into tiles of tile_m x tile_n. A tile reads
    // its tile_m rows of A and its tile_n columns of B once (K deep) and
    // shares nothing with other tiles. So A is read once per COLUMN of tiles,
    // ceil(N / tile_n) times in all, and B once per ROW of tiles,
    // ceil(M / tile_m) times; C is written once:
    //   4 * (ceil(N/tile_n) * M*K + ceil(M/tile_m) * K*N + M*N)
    // Check: tiles as large as C give compulsory_bytes(s).
    (void)s; (void)tile_m; (void)tile_n;
    return 0;
}

double arithmetic_intensity(mml::Shape s, double bytes) {
    // TODO(lab10, task 3): FLOP per byte: 2*M*N*K / bytes (2 FLOP a multiply-add).
    (void)s; (void)bytes;
    return 0;
}

double roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs) {
    // TODO(lab10, task 4): the roofline: min(peak, intensity * bandwidth).
    // (FLOP/byte x GB/s = GFLOP/s.)
    (void)intensity; (void)peak_gflops; (void)bandwidth_gbs;
    return 0;
}

// ---------------------------------------------------------------- Part 2: latency-hidden factor
// Notation (models/lh_model.h): for block b = block i,
//   ILP_i = b.ilp, La_i = b.latency, Bw_i = b.bandwidth;
//   TNT = occ.warps_on_sm() (TLP x BLP), NT = occ.warps_per_block;
//   j = 1..TNT is the warp's place in the SM's round-robin order.

double waiting_cycles(const mml::lh::Block& b, const mml::lh::Occupancy& occ, int j) {
    // TODO(lab10, task 5): warp j waits the latency, its own transfer, and
    // - when transfers queue up (Bw_i > ILP_i) - the extra of each warp ahead:
    //   W(i,j) = La_i + Bw_i + up * max{0, Bw_i - ILP_i}
    // where up = j - 1 without a barrier; with one (b.barrier), the whole
    // thread block's transfers finish together, so up = j - 1 rounded UP to a
    // multiple of NT:  NT * ceil((j-1) / NT)   (integers: NT*((j-1+NT-1)/NT)).
    (void)b; (void)occ; (void)j;
    return 0;
}

double latency_hidden(const mml::lh::Block& b, const mml::lh::Block& next, const mml::lh::Occupancy& occ, int j) {
    // TODO(lab10, task 6): seed 004's unified factor.
    //   hidden = ILP_i * (TNT - j)                    the warps still to issue block i
    //          + down * min{ILP_(i+1), max{ILP_i, Bw_i}} the warps ahead, already in block i+1
    // (ILP_(i+1) = next.ilp, the issue time of the block after b)
    //   LH(i,j) = max{0, 1 - hidden / W(i,j)}         (W from task 5)
    // down = j - 1 without a barrier; with one, j - 1 rounded DOWN to a
    // multiple of NT (warps of j's own thread block cannot pass the barrier
    // before j does):  NT * floor((j-1) / NT).
    // If W(i,j) <= 0 there is nothing to hide: return 0.
    // Edge cases the tests check: j = 1 (nobody ahead), j = TNT (nobody behind),
    // and the max{0, ...} clamp when the other warps cover the whole wait.
    (void)b; (void)next; (void)occ; (void)j;
    return 0;
}

double time_one_rep(const std::vector<mml::lh::Block>& blocks, const mml::lh::Occupancy& occ) {
    // TODO(lab10, task 7): TimeOneRep = sum over blocks i of
    //     SMComputeTime_i  = TNT * ILP_i          (every resident warp issues block i)
    //   + exposed_i        = max over j = 1..TNT of W(i,j) * LH(i,j)
    // (the longest wait left uncovered: the warps wait at the same time, so
    // their exposed waits overlap - handouts/lab10.md, "reading the sum").
    // Block i+1 of the last block is blocks[0].
    (void)blocks; (void)occ;
    return 0;
}

long long rep_num(long long grid_blocks, int blocks_per_sm, int sm_count) {
    // TODO(lab10, task 8a): RepNum = NB / (BLP * NSM) rounded UP: how many
    // rounds of blocks the GPU needs (a partial last round costs a full one).
    (void)grid_blocks; (void)blocks_per_sm; (void)sm_count;
    return 0;
}

double time_total_cycles(const mml::lh::Kernel& k) {
    // TODO(lab10, task 8b): TimeTotal = TimeOneRep(k.blocks, k.occupancy) * RepNum
    // with NB = k.grid_blocks, BLP = k.occupancy.blocks_per_sm, NSM = k.sm_count.
    (void)k;
    return 0;
}

}  // namespace student::lab10
