// Lab 10 reference: the roofline and Yuan et al. 2010's latency-hidden-factor model
// (the same functions as labs/lab10/models.h; handouts/lab10.md explains them).
//
// Part 1, the roofline: how many bytes a matrix product must move under a
// stated data-movement model, its arithmetic intensity, and the bound
// min(peak, intensity x bandwidth) that `mmlab roofline` puts every measured
// stage of labs 1-8 against.
// Part 2, Yuan et al. 2010's latency-hidden-factor model: LH(i, j), the time of one
// repetition and of the whole kernel, which `mmlab lh-model` evaluates for
// lab 6's naive kernel, lab 7's tiled kernels and the Volkov kernel and puts
// beside their measured times.
// Plain C++: everything here runs and is tested without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/matrix.h"
#include "models/lh_model.h"

namespace reference::lab10 {

// ---- Part 1: the roofline (counts in bytes of float32 data, FLOP = 2 per multiply-add)

// Task 1: the compulsory traffic: A, B read once and C written once.
double compulsory_bytes(mml::Shape s);
// Task 2: the traffic of a tiled algorithm whose tiles of C are tile_m x tile_n:
// each tile reads its tile_m rows of A and tile_n columns of B once, C is
// written once (tiles at the edge may be partial).
double tiled_bytes(mml::Shape s, std::int64_t tile_m, std::int64_t tile_n);
// Task 3: FLOP per byte moved.
double arithmetic_intensity(mml::Shape s, double bytes);
// Task 4: the attainable GFLOP/s: min(peak, intensity x bandwidth).
double roofline_gflops(double intensity, double peak_gflops, double bandwidth_gbs);

// ---- Part 2: the latency-hidden-factor model (Yuan et al. 2010), all times in SM cycles

// Task 5: how long warp j (1-based, j = 1..TLP*BLP) waits for block b's data:
// the denominator of LH(i, j).
double waiting_cycles(const mml::lh::Block& b, const mml::lh::Occupancy& occ, int j);
// Task 6: LH(i, j): the fraction of that wait the other warps cannot hide.
double latency_hidden(const mml::lh::Block& b, const mml::lh::Block& next, const mml::lh::Occupancy& occ, int j);
// Task 7: TimeOneRep: one round of TLP*BLP warps through all the blocks.
double time_one_rep(const std::vector<mml::lh::Block>& blocks, const mml::lh::Occupancy& occ);
// Task 8: RepNum and TimeTotal (cycles).
long long rep_num(long long grid_blocks, int blocks_per_sm, int sm_count);
double time_total_cycles(const mml::lh::Kernel& k);

}  // namespace reference::lab10
