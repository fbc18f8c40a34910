// The inputs of the latency-hidden-factor model of Yuan, Zhang, Long, Wang
// and Zhang ("A GPU Computational Model Based on Latency Hidden Factor",
// Journal of Software 21 (Suppl.), 2010), shared by lab 10's starter, its
// reference and the harness (models/lh_kernels.h describes our kernels in
// these terms). Plain C++: the model runs without a GPU. Every time is in SM clock cycles.
//
// The model cuts the code of one warp into basic blocks at the points where
// the warp must wait (a memory load whose value it needs next, a barrier).
// Block i costs the SM its issue time (ILP_i) for every warp resident on it,
// plus whatever part of the wait the other warps' issue cannot cover.
#pragma once

#include <string>
#include <vector>

namespace mml::lh {

// One basic block of one warp.
struct Block {
    std::string what;       // for printing: "load A, B (global)", "16 FMA (shared)"...
    double ilp = 0;         // ILP_i: the SM's cycles to issue this block's instructions for one warp
    double latency = 0;     // MemAccLa_i: latency of the memory level the block's wait is on
    double bandwidth = 0;   // MemAccBw_i = DataSize_i / (bandwidth per SM): the warp's bytes' transfer time
    bool barrier = false;   // ends at __syncthreads: the barrier variant LatencyHiddenSyn applies
};

// How many warps the SM holds at once (the paper's TLP and BLP).
struct Occupancy {
    int warps_per_block = 1;  // TLP (and NT of the barrier variant, counted in warps)
    int blocks_per_sm = 1;    // BLP
    int warps_on_sm() const { return warps_per_block * blocks_per_sm; }  // TLP x BLP
};

// A whole kernel launch as the model sees it.
struct Kernel {
    std::string name;
    std::vector<Block> blocks;  // one warp's basic blocks, in program order
    Occupancy occupancy;
    long long grid_blocks = 0;  // NB: thread blocks in the launch
    int sm_count = 0;           // NSM
    double clock_ghz = 0;       // to turn cycles into seconds
};

// Warp j's wait for block b's data (the denominator of LH), and LH(i, j)
// itself: what lab 10's tasks 5 and 6 compute (labs/lab10/models.h); the
// harness passes the student's functions or the reference's.
using WaitingCyclesFn = double (*)(const Block& b, const Occupancy& occ, int j);
using LatencyHiddenFn = double (*)(const Block& b, const Block& next, const Occupancy& occ, int j);

// TimeOneRep with the paper's printed sum over the warps j (every warp's
// exposed wait added), for comparison with the task's reading (the longest
// exposed wait): `mmlab lh-model` prints both, handouts/lab10.md says why they
// differ. Not a task: built from the two functions given.
double time_one_rep_as_printed(const std::vector<Block>& blocks, const Occupancy& occ, WaitingCyclesFn waiting_cycles,
                               LatencyHiddenFn latency_hidden);

}  // namespace mml::lh
