// The latency-hidden-factor model of Yuan et al. 2010 applied to three of our kernels -
// lab 6's naive kernel, lab 7's shared-memory tiles (the CUBLAS 1.1 scheme the
// paper used) and lab 7's Volkov-Demmel kernel. For each, one warp's code is
// cut into basic blocks at its waits, and each block gets its issue time
// (ILP), the latency of the memory it waits on and the transfer time of its
// bytes. Lab 10's harness evaluates these descriptions with the student's
// model functions and the reference's; students read them (handouts/lab10.md)
// but do not write them.
// Plain C++: the hardware and the occupancy are inputs, read from the GPU by
// harness/stages/lab10/measured_gpu.cpp or stated (the paper's Tesla C1060).
#pragma once

#include <string>
#include <vector>

#include "cpu/matrix.h"
#include "models/lh_model.h"

namespace mml::lh {

struct Hardware {
    std::string name;
    int sm_count = 0;              // NSM
    double clock_ghz = 0;          // SM clock
    double issue_alu = 0;          // cycles for the SM to issue one warp's FP32/integer instruction
    double issue_lsu = 0;          // ... one warp's load or store (global or shared)
    double latency_global = 0;     // cycles: a load from DRAM
    double latency_shared = 0;     // cycles: a load from shared memory
    double bandwidth_gbs = 0;      // DRAM, the whole chip (10^9 bytes/s)
    double shared_bytes_per_cycle = 0;  // shared memory, per SM
    int sector_bytes = 32;         // smallest DRAM transaction
    bool block_scheduling = false; // CUDA 1.x: an implicit barrier ends the kernel (the paper's rule)
    // The caches, for the cache-aware model (Memory::Caches); 0 where unknown
    // (the C1060 had no cache for global memory).
    double latency_l1 = 0;         // cycles: a global load that hits the L1
    double latency_l2 = 0;         // cycles: a global load that misses the L1 and hits the L2
    double l1_bytes_per_cycle = 0; // L1, per SM
    double l2_bandwidth_gbs = 0;   // L2 to the SMs, the whole chip (10^9 bytes/s)
    double l2_bytes = 0;           // the L2's size
    // DRAM bytes an SM receives per cycle when all SMs share the bandwidth equally.
    double global_bytes_per_cycle() const { return bandwidth_gbs / (sm_count * clock_ghz); }
    // ... and L2 bytes.
    double l2_bytes_per_cycle() const { return l2_bandwidth_gbs / (sm_count * clock_ghz); }
    bool has_caches() const {
        return latency_l1 > 0 && latency_l2 > 0 && l1_bytes_per_cycle > 0 && l2_bandwidth_gbs > 0 && l2_bytes > 0;
    }
};

// Where the model sends the kernels' global loads:
//   DramOnly  the paper's model: every load to DRAM, at DRAM's latency and
//             bandwidth (the C1060 had no cache for global memory);
//   Caches    lab 10's extension: each load's bytes split between the L1, the
//             L2 and DRAM by the reuse analysis of models/lh_reuse.h, each
//             level charged its latency and bandwidth; the naive kernel's
//             loop as the compiler builds it (kNaiveStepsPerWait steps a wait).
enum class Memory { DramOnly, Caches };
const char* memory_name(Memory m);  // "DRAM only", "caches"

// The paper's Tesla C1060 (Table 2): 30 SMs at 1.30 GHz, 8 cores an SM (a
// warp instruction every 4 cycles), global memory 550 cycles and 102 GB/s,
// shared memory 36 cycles and "50" (units not given; read as GB/s per SM,
// about 38 bytes a cycle: 102 GB/s for the whole chip would make shared
// memory slower than DRAM).
Hardware paper_c1060();

// The date of the H100 run recorded below and in handouts/data/lab10-lh-h100.csv.
constexpr const char* kRecordedH100Date = "2026-11-25";
// The H100 inputs that `mmlab lh-model` measured on kRecordedH100Date (NVIDIA
// H100 80GB HBM3, 132 SMs, CUDA 13; handouts/lab10.md), rounded as printed,
// for machines without a GPU: clock 1.98 GHz, DRAM latency 688 cycles, L2 hit
// 283, L1 hit 39.6, shared 29, read bandwidth 3022 GB/s from DRAM and 6083
// from the L2, L2 50 MiB; issue 0.25 / 1 cycles (FP32, load/store).
Hardware recorded_h100();
// The sizes n (n x n x n) of that run: the paper's 2^i + 32, then 2^i, i = 9..12.
const std::vector<long long>& recorded_h100_sizes();
// The occupancy the CUDA runtime reported for each kernel in that run
// (warps a block x blocks an SM): naive 8x8, tiled16 8x8, tiled32 32x2,
// volkov 4x3.
Occupancy recorded_h100_occupancy(const std::string& kernel);

// The kernels' launch shapes, as labs/lab6/naive_coalesced.cu and
// labs/lab7/volkov.cu give them (and the references keep them).
constexpr int kNaiveBlockX = 32, kNaiveBlockY = 8;
constexpr int kVolkovThreads = 128, kVolkovRows = 64, kVolkovDepth = 32;
// nvcc unrolls the naive kernel's k loop 4 times (its trip count is known only
// at run time), and ptxas issues the loads of two steps before the first
// multiply-add needs them: the unrolled body waits twice, for steps k, k+1 and
// for k+2, k+3 (the SASS of lab 6's kernel, sm_90, CUDA 13.0: LDG x4, FFMA,
// LDG x2, FFMA, LDG x2, FFMA, FFMA). So a warp waits once every 2 steps.
constexpr int kNaiveStepsPerWait = 2;

// Basic blocks of one warp and the launch, for C = A*B of shape s. The
// occupancy is the kernel's (registers, shared memory, hardware limits);
// when the launch has fewer blocks than the GPU holds, each SM gets fewer
// (our addition: the paper's matrices were always large enough).
// Memory::Caches needs hw.has_caches(); throws std::invalid_argument otherwise.
Kernel naive_model(const Hardware& hw, Shape s, int block_x, int block_y, Occupancy occ,
                   Memory memory = Memory::DramOnly);
Kernel tiled_model(const Hardware& hw, Shape s, int tile, Occupancy occ, Memory memory = Memory::DramOnly);
Kernel volkov_model(const Hardware& hw, Shape s, Occupancy occ, Memory memory = Memory::DramOnly);

// The four kernels lab 10 models, by the names its tables use: "naive" (lab
// 6's, 32 x 8 threads), "tiled16", "tiled32" (lab 7's tiles) and "volkov".
const std::vector<std::string>& modelled_kernels();
// The description of one of them; throws std::invalid_argument for another name.
Kernel kernel_model(const std::string& kernel, const Hardware& hw, Shape s, Occupancy occ,
                    Memory memory = Memory::DramOnly);

}  // namespace mml::lh
